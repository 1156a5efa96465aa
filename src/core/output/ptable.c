/*
 * ptable.c - PrettyTable 3.6.0's text layout (see ptable.h).
 *
 * The steps follow PrettyTable.get_string() with the default options:
 *
 *   1. Column widths: for the name and every cell of a column, the widest
 *      of its "\n"-separated lines, measured as wcwidth.wcswidth() after
 *      removing ANSI sequences (PrettyTable's _str_block_width()).  A line
 *      holding a control character measures -1, so widths are signed.
 *   2. With a title: the content must be at least len(title) + 4 minus the
 *      padding and borders wide; when it is narrower, every width is scaled
 *      by needed / sum(widths) (a double, each result floored, a zero sum
 *      counting as 1) and the last column takes what flooring left over.
 *   3. Title rows (a top rule without inner junctions, then the title
 *      centred in the rule's length minus 2), the header (the rule, the
 *      centred names, the rule), one line per cell line, the bottom rule.
 *
 * Centring is PrettyTable's _justify(): excess = width - text width; an
 * even excess splits evenly; an odd one puts the extra space on the right
 * of odd-width text and on the left of even-width text.  Negative counts
 * (possible with the -1 widths) repeat a space zero times, as Python's
 * " " * n does, and halves are floored as Python's // floors.
 *
 * Widths follow wcwidth 0.2.5 as Debian 12 ships it (Unicode 15.0.0): 0
 * for NUL, the zero-width format characters it lists and the combining
 * ranges of pt_zero; -1 for C0/C1 controls; 2 for the ranges of pt_wide;
 * 1 otherwise.  The two range tables are printed by
 * `tests/ptable/gen.py --wcwidth`.
 *
 * Plain C11.
 */
#include "output/ptable.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pyfmt.h"

/* ------------------------------------------------------------ wcwidth */

typedef struct {
    uint32_t lo, hi;
} pt_range;

/* wcwidth 0.2.5 (Debian 12), Unicode 15.0.0: ZERO_WIDTH */
static const pt_range pt_zero[] = {
    {0x00300, 0x0036F}, {0x00483, 0x00489}, {0x00591, 0x005BD}, {0x005BF, 0x005BF},
    {0x005C1, 0x005C2}, {0x005C4, 0x005C5}, {0x005C7, 0x005C7}, {0x00610, 0x0061A},
    {0x0064B, 0x0065F}, {0x00670, 0x00670}, {0x006D6, 0x006DC}, {0x006DF, 0x006E4},
    {0x006E7, 0x006E8}, {0x006EA, 0x006ED}, {0x00711, 0x00711}, {0x00730, 0x0074A},
    {0x007A6, 0x007B0}, {0x007EB, 0x007F3}, {0x007FD, 0x007FD}, {0x00816, 0x00819},
    {0x0081B, 0x00823}, {0x00825, 0x00827}, {0x00829, 0x0082D}, {0x00859, 0x0085B},
    {0x00898, 0x0089F}, {0x008CA, 0x008E1}, {0x008E3, 0x00902}, {0x0093A, 0x0093A},
    {0x0093C, 0x0093C}, {0x00941, 0x00948}, {0x0094D, 0x0094D}, {0x00951, 0x00957},
    {0x00962, 0x00963}, {0x00981, 0x00981}, {0x009BC, 0x009BC}, {0x009C1, 0x009C4},
    {0x009CD, 0x009CD}, {0x009E2, 0x009E3}, {0x009FE, 0x009FE}, {0x00A01, 0x00A02},
    {0x00A3C, 0x00A3C}, {0x00A41, 0x00A42}, {0x00A47, 0x00A48}, {0x00A4B, 0x00A4D},
    {0x00A51, 0x00A51}, {0x00A70, 0x00A71}, {0x00A75, 0x00A75}, {0x00A81, 0x00A82},
    {0x00ABC, 0x00ABC}, {0x00AC1, 0x00AC5}, {0x00AC7, 0x00AC8}, {0x00ACD, 0x00ACD},
    {0x00AE2, 0x00AE3}, {0x00AFA, 0x00AFF}, {0x00B01, 0x00B01}, {0x00B3C, 0x00B3C},
    {0x00B3F, 0x00B3F}, {0x00B41, 0x00B44}, {0x00B4D, 0x00B4D}, {0x00B55, 0x00B56},
    {0x00B62, 0x00B63}, {0x00B82, 0x00B82}, {0x00BC0, 0x00BC0}, {0x00BCD, 0x00BCD},
    {0x00C00, 0x00C00}, {0x00C04, 0x00C04}, {0x00C3C, 0x00C3C}, {0x00C3E, 0x00C40},
    {0x00C46, 0x00C48}, {0x00C4A, 0x00C4D}, {0x00C55, 0x00C56}, {0x00C62, 0x00C63},
    {0x00C81, 0x00C81}, {0x00CBC, 0x00CBC}, {0x00CBF, 0x00CBF}, {0x00CC6, 0x00CC6},
    {0x00CCC, 0x00CCD}, {0x00CE2, 0x00CE3}, {0x00D00, 0x00D01}, {0x00D3B, 0x00D3C},
    {0x00D41, 0x00D44}, {0x00D4D, 0x00D4D}, {0x00D62, 0x00D63}, {0x00D81, 0x00D81},
    {0x00DCA, 0x00DCA}, {0x00DD2, 0x00DD4}, {0x00DD6, 0x00DD6}, {0x00E31, 0x00E31},
    {0x00E34, 0x00E3A}, {0x00E47, 0x00E4E}, {0x00EB1, 0x00EB1}, {0x00EB4, 0x00EBC},
    {0x00EC8, 0x00ECE}, {0x00F18, 0x00F19}, {0x00F35, 0x00F35}, {0x00F37, 0x00F37},
    {0x00F39, 0x00F39}, {0x00F71, 0x00F7E}, {0x00F80, 0x00F84}, {0x00F86, 0x00F87},
    {0x00F8D, 0x00F97}, {0x00F99, 0x00FBC}, {0x00FC6, 0x00FC6}, {0x0102D, 0x01030},
    {0x01032, 0x01037}, {0x01039, 0x0103A}, {0x0103D, 0x0103E}, {0x01058, 0x01059},
    {0x0105E, 0x01060}, {0x01071, 0x01074}, {0x01082, 0x01082}, {0x01085, 0x01086},
    {0x0108D, 0x0108D}, {0x0109D, 0x0109D}, {0x0135D, 0x0135F}, {0x01712, 0x01714},
    {0x01732, 0x01733}, {0x01752, 0x01753}, {0x01772, 0x01773}, {0x017B4, 0x017B5},
    {0x017B7, 0x017BD}, {0x017C6, 0x017C6}, {0x017C9, 0x017D3}, {0x017DD, 0x017DD},
    {0x0180B, 0x0180D}, {0x0180F, 0x0180F}, {0x01885, 0x01886}, {0x018A9, 0x018A9},
    {0x01920, 0x01922}, {0x01927, 0x01928}, {0x01932, 0x01932}, {0x01939, 0x0193B},
    {0x01A17, 0x01A18}, {0x01A1B, 0x01A1B}, {0x01A56, 0x01A56}, {0x01A58, 0x01A5E},
    {0x01A60, 0x01A60}, {0x01A62, 0x01A62}, {0x01A65, 0x01A6C}, {0x01A73, 0x01A7C},
    {0x01A7F, 0x01A7F}, {0x01AB0, 0x01ACE}, {0x01B00, 0x01B03}, {0x01B34, 0x01B34},
    {0x01B36, 0x01B3A}, {0x01B3C, 0x01B3C}, {0x01B42, 0x01B42}, {0x01B6B, 0x01B73},
    {0x01B80, 0x01B81}, {0x01BA2, 0x01BA5}, {0x01BA8, 0x01BA9}, {0x01BAB, 0x01BAD},
    {0x01BE6, 0x01BE6}, {0x01BE8, 0x01BE9}, {0x01BED, 0x01BED}, {0x01BEF, 0x01BF1},
    {0x01C2C, 0x01C33}, {0x01C36, 0x01C37}, {0x01CD0, 0x01CD2}, {0x01CD4, 0x01CE0},
    {0x01CE2, 0x01CE8}, {0x01CED, 0x01CED}, {0x01CF4, 0x01CF4}, {0x01CF8, 0x01CF9},
    {0x01DC0, 0x01DFF}, {0x020D0, 0x020F0}, {0x02CEF, 0x02CF1}, {0x02D7F, 0x02D7F},
    {0x02DE0, 0x02DFF}, {0x0302A, 0x0302D}, {0x03099, 0x0309A}, {0x0A66F, 0x0A672},
    {0x0A674, 0x0A67D}, {0x0A69E, 0x0A69F}, {0x0A6F0, 0x0A6F1}, {0x0A802, 0x0A802},
    {0x0A806, 0x0A806}, {0x0A80B, 0x0A80B}, {0x0A825, 0x0A826}, {0x0A82C, 0x0A82C},
    {0x0A8C4, 0x0A8C5}, {0x0A8E0, 0x0A8F1}, {0x0A8FF, 0x0A8FF}, {0x0A926, 0x0A92D},
    {0x0A947, 0x0A951}, {0x0A980, 0x0A982}, {0x0A9B3, 0x0A9B3}, {0x0A9B6, 0x0A9B9},
    {0x0A9BC, 0x0A9BD}, {0x0A9E5, 0x0A9E5}, {0x0AA29, 0x0AA2E}, {0x0AA31, 0x0AA32},
    {0x0AA35, 0x0AA36}, {0x0AA43, 0x0AA43}, {0x0AA4C, 0x0AA4C}, {0x0AA7C, 0x0AA7C},
    {0x0AAB0, 0x0AAB0}, {0x0AAB2, 0x0AAB4}, {0x0AAB7, 0x0AAB8}, {0x0AABE, 0x0AABF},
    {0x0AAC1, 0x0AAC1}, {0x0AAEC, 0x0AAED}, {0x0AAF6, 0x0AAF6}, {0x0ABE5, 0x0ABE5},
    {0x0ABE8, 0x0ABE8}, {0x0ABED, 0x0ABED}, {0x0FB1E, 0x0FB1E}, {0x0FE00, 0x0FE0F},
    {0x0FE20, 0x0FE2F}, {0x101FD, 0x101FD}, {0x102E0, 0x102E0}, {0x10376, 0x1037A},
    {0x10A01, 0x10A03}, {0x10A05, 0x10A06}, {0x10A0C, 0x10A0F}, {0x10A38, 0x10A3A},
    {0x10A3F, 0x10A3F}, {0x10AE5, 0x10AE6}, {0x10D24, 0x10D27}, {0x10EAB, 0x10EAC},
    {0x10EFD, 0x10EFF}, {0x10F46, 0x10F50}, {0x10F82, 0x10F85}, {0x11001, 0x11001},
    {0x11038, 0x11046}, {0x11070, 0x11070}, {0x11073, 0x11074}, {0x1107F, 0x11081},
    {0x110B3, 0x110B6}, {0x110B9, 0x110BA}, {0x110C2, 0x110C2}, {0x11100, 0x11102},
    {0x11127, 0x1112B}, {0x1112D, 0x11134}, {0x11173, 0x11173}, {0x11180, 0x11181},
    {0x111B6, 0x111BE}, {0x111C9, 0x111CC}, {0x111CF, 0x111CF}, {0x1122F, 0x11231},
    {0x11234, 0x11234}, {0x11236, 0x11237}, {0x1123E, 0x1123E}, {0x11241, 0x11241},
    {0x112DF, 0x112DF}, {0x112E3, 0x112EA}, {0x11300, 0x11301}, {0x1133B, 0x1133C},
    {0x11340, 0x11340}, {0x11366, 0x1136C}, {0x11370, 0x11374}, {0x11438, 0x1143F},
    {0x11442, 0x11444}, {0x11446, 0x11446}, {0x1145E, 0x1145E}, {0x114B3, 0x114B8},
    {0x114BA, 0x114BA}, {0x114BF, 0x114C0}, {0x114C2, 0x114C3}, {0x115B2, 0x115B5},
    {0x115BC, 0x115BD}, {0x115BF, 0x115C0}, {0x115DC, 0x115DD}, {0x11633, 0x1163A},
    {0x1163D, 0x1163D}, {0x1163F, 0x11640}, {0x116AB, 0x116AB}, {0x116AD, 0x116AD},
    {0x116B0, 0x116B5}, {0x116B7, 0x116B7}, {0x1171D, 0x1171F}, {0x11722, 0x11725},
    {0x11727, 0x1172B}, {0x1182F, 0x11837}, {0x11839, 0x1183A}, {0x1193B, 0x1193C},
    {0x1193E, 0x1193E}, {0x11943, 0x11943}, {0x119D4, 0x119D7}, {0x119DA, 0x119DB},
    {0x119E0, 0x119E0}, {0x11A01, 0x11A0A}, {0x11A33, 0x11A38}, {0x11A3B, 0x11A3E},
    {0x11A47, 0x11A47}, {0x11A51, 0x11A56}, {0x11A59, 0x11A5B}, {0x11A8A, 0x11A96},
    {0x11A98, 0x11A99}, {0x11C30, 0x11C36}, {0x11C38, 0x11C3D}, {0x11C3F, 0x11C3F},
    {0x11C92, 0x11CA7}, {0x11CAA, 0x11CB0}, {0x11CB2, 0x11CB3}, {0x11CB5, 0x11CB6},
    {0x11D31, 0x11D36}, {0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D}, {0x11D3F, 0x11D45},
    {0x11D47, 0x11D47}, {0x11D90, 0x11D91}, {0x11D95, 0x11D95}, {0x11D97, 0x11D97},
    {0x11EF3, 0x11EF4}, {0x11F00, 0x11F01}, {0x11F36, 0x11F3A}, {0x11F40, 0x11F40},
    {0x11F42, 0x11F42}, {0x13440, 0x13440}, {0x13447, 0x13455}, {0x16AF0, 0x16AF4},
    {0x16B30, 0x16B36}, {0x16F4F, 0x16F4F}, {0x16F8F, 0x16F92}, {0x16FE4, 0x16FE4},
    {0x1BC9D, 0x1BC9E}, {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46}, {0x1D167, 0x1D169},
    {0x1D17B, 0x1D182}, {0x1D185, 0x1D18B}, {0x1D1AA, 0x1D1AD}, {0x1D242, 0x1D244},
    {0x1DA00, 0x1DA36}, {0x1DA3B, 0x1DA6C}, {0x1DA75, 0x1DA75}, {0x1DA84, 0x1DA84},
    {0x1DA9B, 0x1DA9F}, {0x1DAA1, 0x1DAAF}, {0x1E000, 0x1E006}, {0x1E008, 0x1E018},
    {0x1E01B, 0x1E021}, {0x1E023, 0x1E024}, {0x1E026, 0x1E02A}, {0x1E08F, 0x1E08F},
    {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE}, {0x1E2EC, 0x1E2EF}, {0x1E4EC, 0x1E4EF},
    {0x1E8D0, 0x1E8D6}, {0x1E944, 0x1E94A}, {0xE0100, 0xE01EF},
};

/* wcwidth 0.2.5 (Debian 12), Unicode 15.0.0: WIDE_EASTASIAN */
static const pt_range pt_wide[] = {
    {0x01100, 0x0115F}, {0x0231A, 0x0231B}, {0x02329, 0x0232A}, {0x023E9, 0x023EC},
    {0x023F0, 0x023F0}, {0x023F3, 0x023F3}, {0x025FD, 0x025FE}, {0x02614, 0x02615},
    {0x02648, 0x02653}, {0x0267F, 0x0267F}, {0x02693, 0x02693}, {0x026A1, 0x026A1},
    {0x026AA, 0x026AB}, {0x026BD, 0x026BE}, {0x026C4, 0x026C5}, {0x026CE, 0x026CE},
    {0x026D4, 0x026D4}, {0x026EA, 0x026EA}, {0x026F2, 0x026F3}, {0x026F5, 0x026F5},
    {0x026FA, 0x026FA}, {0x026FD, 0x026FD}, {0x02705, 0x02705}, {0x0270A, 0x0270B},
    {0x02728, 0x02728}, {0x0274C, 0x0274C}, {0x0274E, 0x0274E}, {0x02753, 0x02755},
    {0x02757, 0x02757}, {0x02795, 0x02797}, {0x027B0, 0x027B0}, {0x027BF, 0x027BF},
    {0x02B1B, 0x02B1C}, {0x02B50, 0x02B50}, {0x02B55, 0x02B55}, {0x02E80, 0x02E99},
    {0x02E9B, 0x02EF3}, {0x02F00, 0x02FD5}, {0x02FF0, 0x02FFB}, {0x03000, 0x0303E},
    {0x03041, 0x03096}, {0x03099, 0x030FF}, {0x03105, 0x0312F}, {0x03131, 0x0318E},
    {0x03190, 0x031E3}, {0x031F0, 0x0321E}, {0x03220, 0x03247}, {0x03250, 0x04DBF},
    {0x04E00, 0x0A48C}, {0x0A490, 0x0A4C6}, {0x0A960, 0x0A97C}, {0x0AC00, 0x0D7A3},
    {0x0F900, 0x0FAFF}, {0x0FE10, 0x0FE19}, {0x0FE30, 0x0FE52}, {0x0FE54, 0x0FE66},
    {0x0FE68, 0x0FE6B}, {0x0FF01, 0x0FF60}, {0x0FFE0, 0x0FFE6}, {0x16FE0, 0x16FE4},
    {0x16FF0, 0x16FF1}, {0x17000, 0x187F7}, {0x18800, 0x18CD5}, {0x18D00, 0x18D08},
    {0x1AFF0, 0x1AFF3}, {0x1AFF5, 0x1AFFB}, {0x1AFFD, 0x1AFFE}, {0x1B000, 0x1B122},
    {0x1B132, 0x1B132}, {0x1B150, 0x1B152}, {0x1B155, 0x1B155}, {0x1B164, 0x1B167},
    {0x1B170, 0x1B2FB}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E},
    {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248},
    {0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F320}, {0x1F32D, 0x1F335},
    {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA}, {0x1F3CF, 0x1F3D3},
    {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440},
    {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567},
    {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F},
    {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7},
    {0x1F6DC, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7EB},
    {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF},
    {0x1FA70, 0x1FA7C}, {0x1FA80, 0x1FA88}, {0x1FA90, 0x1FABD}, {0x1FABF, 0x1FAC5},
    {0x1FACE, 0x1FADB}, {0x1FAE0, 0x1FAE8}, {0x1FAF0, 0x1FAF8}, {0x20000, 0x2FFFD},
    {0x30000, 0x3FFFD},
};

/* 1 when `cp` lies in one of the n sorted ranges of t, else 0. */
static int in_ranges(uint32_t cp, const pt_range *t, size_t n)
{
    size_t lo = 0, hi = n;

    if (cp < t[0].lo || cp > t[n - 1].hi)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp > t[mid].hi)
            lo = mid + 1;
        else if (cp < t[mid].lo)
            hi = mid;
        else
            return 1;
    }
    return 0;
}

/* wcwidth.wcwidth(chr(cp)): -1, 0, 1 or 2. */
static int pt_wcwidth(uint32_t cp)
{
    if (cp == 0 || cp == 0x034F || (cp >= 0x200B && cp <= 0x200F) || cp == 0x2028 ||
        cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2063))
        return 0;
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
        return -1;
    if (in_ranges(cp, pt_zero, sizeof pt_zero / sizeof pt_zero[0]))
        return 0;
    return 1 + in_ranges(cp, pt_wide, sizeof pt_wide / sizeof pt_wide[0]);
}

/* ------------------------------------------------------------ measuring */

#define PT_STRAY UINT32_MAX /* a byte that starts no valid UTF-8 sequence */

/* Decode one code point from s[0..n), n > 0, as Python's strict UTF-8
 * decoder accepts it; returns the bytes used.  A byte that starts no valid
 * sequence is used alone and gives PT_STRAY (surrogateescape turns each
 * such byte into one code point of width 1). */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char b = s[0];
    size_t len, i;
    uint32_t v, lo = 0x80, hi = 0xBF; /* allowed range of the second byte */

    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
        v = b & 0x1Fu;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        v = b & 0x0Fu;
        if (b == 0xE0)
            lo = 0xA0; /* no overlong forms */
        else if (b == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        v = b & 0x07u;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        *cp = PT_STRAY;
        return 1;
    }
    if (n < len || s[1] < lo || s[1] > hi) {
        *cp = PT_STRAY;
        return 1;
    }
    for (i = 1; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) {
            *cp = PT_STRAY;
            return 1;
        }
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    *cp = v;
    return len;
}

/* Length of the ANSI sequence PrettyTable strips before measuring
 * (regex "\033\[[0-9;]*m|\033\(B") at s[0..n), s[0] == ESC; 0 if none. */
static size_t ansi_len(const char *s, size_t n)
{
    size_t j = 2;

    if (n >= 2 && s[1] == '[') {
        while (j < n && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';'))
            j++;
        return j < n && s[j] == 'm' ? j + 1 : 0;
    }
    return n >= 3 && s[1] == '(' && s[2] == 'B' ? 3 : 0;
}

/* _str_block_width(s): wcswidth() of s[0..n) without its ANSI sequences;
 * -1 when it holds a character of width -1. */
static long long block_width(const char *s, size_t n)
{
    long long total = 0;
    size_t i = 0, k;
    uint32_t cp;
    int w;

    while (i < n) {
        unsigned char b = (unsigned char)s[i];
        if (b >= 0x20 && b < 0x7F) {
            total++;
            i++;
            continue;
        }
        if (b == 0x1B && (k = ansi_len(s + i, n - i)) != 0) {
            i += k;
            continue;
        }
        i += utf8_next((const unsigned char *)s + i, n - i, &cp);
        w = cp == PT_STRAY ? 1 : pt_wcwidth(cp);
        if (w < 0)
            return -1;
        total += w;
    }
    return total;
}

/* Python len(): the code points of s[0..n) (a stray byte counts as one). */
static size_t py_len(const char *s, size_t n)
{
    size_t i = 0, count = 0;
    uint32_t cp;

    while (i < n) {
        i += utf8_next((const unsigned char *)s + i, n - i, &cp);
        count++;
    }
    return count;
}

/* Bytes of the first `count` code points of s[0..n). */
static size_t py_prefix(const char *s, size_t n, size_t count)
{
    size_t i = 0;
    uint32_t cp;

    while (i < n && count-- > 0)
        i += utf8_next((const unsigned char *)s + i, n - i, &cp);
    return i;
}

/* _get_size(s)[0]: the widest "\n"-separated line of s[0..n). */
static long long max_line_width(const char *s, size_t n)
{
    long long best = 0, w;
    bool first = true;
    const char *end = s + n, *nl;

    for (;;) {
        nl = memchr(s, '\n', (size_t)(end - s));
        w = block_width(s, nl ? (size_t)(nl - s) : (size_t)(end - s));
        if (first || w > best)
            best = w;
        first = false;
        if (!nl)
            return best;
        s = nl + 1;
    }
}

/* ------------------------------------------------------------ cells */

/* str() of cell (r, c): a pointer into the frame or into buf (at least
 * ET_PYFMT_BUFSZ bytes); its length goes to *len. */
static const char *cell_text(const et_frame *f, size_t r, size_t c, char *buf, size_t *len)
{
    const char *s;

    switch (et_frame_kind(f, r, c)) {
    case ET_CELL_TEXT:
        return et_frame_get_text(f, r, c, len);
    case ET_CELL_INT:
        *len = (size_t)snprintf(buf, ET_PYFMT_BUFSZ, "%" PRId64, et_frame_get_int(f, r, c));
        return buf;
    case ET_CELL_FLOAT:
        *len = et_pyfmt_repr(et_frame_get_float(f, r, c), buf);
        return buf;
    case ET_CELL_BOOL:
        s = et_frame_get_bool(f, r, c) ? "True" : "False";
        break;
    default:
        s = "None";
        break;
    }
    *len = strlen(s);
    return s;
}

/* One column while its cells are written line by line. */
typedef struct {
    char buf[ET_PYFMT_BUFSZ]; /* str() of a number */
    const char *p;            /* the rest of the cell */
    size_t left;              /* bytes at p */
    bool done;                /* every line written */
} pt_col;

/* The next line of a cell ("" once all are out); returns its length. */
static size_t next_line(pt_col *col, const char **line)
{
    const char *nl;
    size_t n;

    if (col->done) {
        *line = "";
        return 0;
    }
    *line = col->p;
    nl = memchr(col->p, '\n', col->left);
    if (!nl) {
        col->done = true;
        return col->left;
    }
    n = (size_t)(nl - col->p);
    col->p = nl + 1;
    col->left -= n + 1;
    return n;
}

/* ------------------------------------------------------------ writing */

/* Python's a // 2. */
static long long half_floor(long long a)
{
    return a >= 0 ? a / 2 : -((-a + 1) / 2);
}

/* _justify(text, width, "c"): the spaces left and right of text whose
 * width is tw (negative counts write nothing). */
static void centre(long long tw, long long width, long long *left, long long *right)
{
    long long excess = width - tw, half = half_floor(excess);

    if (excess % 2 == 0)
        *left = *right = half;
    else if (tw % 2 != 0) { /* odd (Python: -1 % 2 == 1) */
        *left = half;
        *right = half + 1;
    } else {
        *left = half + 1;
        *right = half;
    }
}

/* Write `n` copies of the character c (nothing when n <= 0). */
static void repeat(FILE *out, char c, long long n)
{
    char run[64];
    size_t k;

    memset(run, c, sizeof run);
    while (n > 0) {
        k = n < (long long)sizeof run ? (size_t)n : sizeof run;
        fwrite(run, 1, k, out);
        n -= (long long)k;
    }
}

/* The rule "+---+----+" for the final widths. */
static void write_rule(FILE *out, const long long *w, size_t ncols)
{
    size_t c;

    putc('+', out);
    if (ncols == 0)
        putc('+', out);
    for (c = 0; c < ncols; c++) {
        repeat(out, '-', w[c] + 2);
        putc('+', out);
    }
    putc('\n', out);
}

/* " " + justified text + " " + "|": one cell of a table line. */
static void write_cell(FILE *out, const char *s, size_t n, long long tw, long long width)
{
    long long left, right;

    centre(tw, width, &left, &right);
    putc(' ', out);
    repeat(out, ' ', left);
    fwrite(s, 1, n, out);
    repeat(out, ' ', right);
    fputs(" |", out);
}

/* ------------------------------------------------------------ the table */

/* Step 2: widen the columns under a title; returns true when a column
 * became narrower than it was (possible only with negative widths). */
static bool fit_title(long long *w, size_t ncols, const char *title)
{
    long long need = (long long)py_len(title, strlen(title)) + 2 + 2;
    long long content = 0, sum = 0, old;
    bool shrank = false;
    double scale;
    size_t c;

    need -= 2 * (long long)ncols + (long long)ncols + 1; /* padding, borders */
    for (c = 0; c < ncols; c++)
        content += w[c];
    if (content == 0)
        content = 1;
    if (content >= need)
        return false;
    scale = (double)need / (double)content;
    for (c = 0; c < ncols; c++) {
        old = w[c];
        w[c] = (long long)floor((double)w[c] * scale);
        shrank |= w[c] < old;
        sum += w[c];
    }
    if (sum < need)
        w[ncols - 1] += need - sum;
    return shrank;
}

/* PrettyTable wraps a cell line wider than its column with textwrap, which
 * raises ValueError for a width <= 0 -- the only width such a line can meet
 * (columns start at least as wide as their lines and only a negative width
 * shrinks).  True when some line of the frame would. */
static bool needs_wrap(const et_frame *f, const long long *w, pt_col *cols)
{
    size_t ncols = et_frame_ncols(f), nrows = et_frame_nrows(f), r, c, n;
    const char *line;

    for (r = 0; r < nrows; r++)
        for (c = 0; c < ncols; c++) {
            pt_col *col = &cols[c];
            col->p = cell_text(f, r, c, col->buf, &col->left);
            col->done = false;
            while (!col->done) {
                n = next_line(col, &line);
                if (block_width(line, n) > w[c])
                    return true;
            }
        }
    return false;
}

/* Header cell of column c: the name, cut to w code points when wider
 * (Python's name[:w], a negative w dropping from the end). */
static void write_name(FILE *out, const char *name, long long width)
{
    size_t n = strlen(name), keep, len;
    long long tw = block_width(name, n);

    if (tw > width) {
        len = py_len(name, n);
        if (width >= 0)
            keep = (unsigned long long)width < len ? (size_t)width : len;
        else
            keep = (unsigned long long)-width < len ? len - (size_t)-width : 0;
        n = py_prefix(name, n, keep);
        tw = block_width(name, n);
    }
    write_cell(out, name, n, tw, width);
}

int et_ptable_write(const et_frame *f, const char *title, FILE *out)
{
    size_t ncols = et_frame_ncols(f), nrows = et_frame_nrows(f), r, c, n;
    bool has_title = title && *title;
    long long *w, rule_len, tw, left, right, lw;
    pt_col *cols;
    const char *line;
    int rc = -1;

    if (has_title && ncols == 0) {
        errno = EINVAL; /* PrettyTable: IndexError in _compute_widths() */
        return -1;
    }
    w = calloc(ncols + 1, sizeof *w);
    cols = calloc(ncols + 1, sizeof *cols);
    if (!w || !cols) {
        errno = ENOMEM;
        goto out;
    }

    /* 1. widths */
    for (c = 0; c < ncols; c++) {
        const char *name = et_frame_colname(f, c);
        w[c] = max_line_width(name, strlen(name));
    }
    for (r = 0; r < nrows; r++)
        for (c = 0; c < ncols; c++) {
            line = cell_text(f, r, c, cols[c].buf, &n);
            lw = max_line_width(line, n);
            if (lw > w[c])
                w[c] = lw;
        }

    /* 2. the title */
    if (has_title && fit_title(w, ncols, title) && needs_wrap(f, w, cols)) {
        errno = EINVAL; /* PrettyTable: textwrap's ValueError */
        goto out;
    }

    /* 3. the lines */
    rule_len = 2;
    for (c = 0; c < ncols; c++)
        rule_len += (w[c] + 2 > 0 ? w[c] + 2 : 0) + 1;
    if (ncols > 0)
        rule_len--;
    if (has_title) {
        putc('+', out);
        repeat(out, '-', rule_len - 2);
        fputs("+\n|", out);
        tw = block_width(title, strlen(title));
        centre(tw < 0 ? -1 : tw + 2, rule_len - 2, &left, &right);
        repeat(out, ' ', left);
        putc(' ', out);
        fputs(title, out);
        putc(' ', out);
        repeat(out, ' ', right);
        fputs("|\n", out);
    }
    write_rule(out, w, ncols);
    putc('|', out);
    if (ncols == 0)
        putc('|', out);
    for (c = 0; c < ncols; c++)
        write_name(out, et_frame_colname(f, c), w[c]);
    putc('\n', out);
    write_rule(out, w, ncols);

    for (r = 0; r < nrows && !ferror(out); r++) {
        size_t height = 0, lines, y;
        for (c = 0; c < ncols; c++) {
            pt_col *col = &cols[c];
            const char *p, *end;
            col->p = cell_text(f, r, c, col->buf, &col->left);
            col->done = false;
            for (lines = 1, p = col->p, end = p + col->left;
                 (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
                lines++;
            if (lines > height)
                height = lines;
        }
        /* a row without cells is an empty line */
        for (y = 0; y < height; y++) {
            putc('|', out);
            for (c = 0; c < ncols; c++) {
                n = next_line(&cols[c], &line);
                write_cell(out, line, n, block_width(line, n), w[c]);
            }
            putc('\n', out);
        }
        if (height == 0)
            putc('\n', out);
    }
    write_rule(out, w, ncols);
    if (fflush(out) == 0 && !ferror(out))
        rc = 0;
out:
    free(w);
    free(cols);
    return rc;
}
