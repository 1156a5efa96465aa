/*
 * inputs.c - what an input file is, from its first 64 bytes (inputs.h).
 *
 * Identifiers as the readers check them: an ETDump has "ED00" at byte 8
 * when size-prefixed, else at byte 4 (spec §2.1); a BundledProgram "BP08"
 * at byte 4; an ExecuTorch program "ET12" at byte 4 (program.h); an ETRecord is a ZIP archive (local file header "PK\3\4", or
 * the end-of-central-directory record "PK\5\6" of an empty one); a legacy
 * profiler dump starts with a prof_header_t (spec §9): a 32-byte name,
 * prof_ver = 1 and three (max, used) count pairs with used <= max, in
 * either byte order.  Anything else is "text" when its first 64 bytes hold
 * no NUL (Lua bytecode too): never an input, and a script only when its
 * name says so (.lua, etinspect.scripts.resolve); else "unknown" (a debug
 * buffer has no header at all; an empty file, which the reader refuses).
 */
#include "inputs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/mapfile.h"

static uint32_t ld32(const unsigned char *p, int be)
{
    return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
              : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int is_legacy(const unsigned char *h, size_t n)
{
    if (n < 64)
        return 0;
    for (int be = 0; be < 2; be++) {
        if (ld32(h + 32, be) != 1)
            continue;
        int ok = 1;
        for (int k = 0; k < 3; k++) /* (max, used) pairs at 36, 44, 52 */
            ok &= ld32(h + 40 + 8 * k, be) <= ld32(h + 36 + 8 * k, be);
        if (ok)
            return 1;
    }
    return 0;
}

/* What each kind of input is and the option that takes it: the words of
 * et_input_misplaced's message.  A new kind of input is one line here. */
static const struct {
    et_input_kind kind;
    const char *what;   /* "an ETRecord (a ZIP archive)" */
    const char *option; /* the command line's option for it */
} kinds[] = {
    {ET_INPUT_ETDUMP, "an ETDump", "--etdump_path"},
    {ET_INPUT_LEGACY, "a legacy profiler dump", "--profile_results_path"},
    {ET_INPUT_ETRECORD, "an ETRecord (a ZIP archive)", "--etrecord_path"},
    {ET_INPUT_BUNDLED, "a BundledProgram", "--bundled_program_path"},
    {ET_INPUT_PROGRAM, "an ExecuTorch program (.pte)", "--program_path"},
};

static int kind_row(et_input_kind k)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].kind == k)
            return (int)i;
    return -1;
}

int et_input_misplaced(const char *label, et_input_kind found, et_input_kind expected, char *msg,
                       size_t size)
{
    int f = kind_row(found), e = kind_row(expected);
    if (f < 0 || e < 0 || found == expected)
        return 0;
    snprintf(msg, size, "%s is %s, not %s: give it with %s (or name it without an option: "
                        "etinspect FILE...)",
             label, kinds[f].what, kinds[e].what,
             kinds[f].option);
    return 1;
}

et_input_kind et_input_kind_of(const char *path)
{
    /* opened without blocking, then checked: a FIFO never makes it wait */
    struct stat st;
    et_error ignored;
    int fd = et_open_regular(path, &st, &ignored);
    if (fd < 0)
        return errno == 0 ? ET_INPUT_DIRECTORY : ET_INPUT_MISSING;
    unsigned char h[64];
    size_t n = 0;
    while (n < sizeof h) {
        ssize_t k = pread(fd, h + n, sizeof h - n, (off_t)n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return ET_INPUT_MISSING;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    return et_input_kind_of_bytes(h, n);
}

et_input_kind et_input_kind_of_bytes(const unsigned char *h, size_t n)
{
    if ((n >= 12 && memcmp(h + 8, "ED00", 4) == 0) || (n >= 8 && memcmp(h + 4, "ED00", 4) == 0))
        return ET_INPUT_ETDUMP;
    if (n >= 8 && memcmp(h + 4, "BP08", 4) == 0)
        return ET_INPUT_BUNDLED;
    if (n >= 8 && memcmp(h + 4, "ET12", 4) == 0)
        return ET_INPUT_PROGRAM;
    if (n >= 4 && (memcmp(h, "PK\3\4", 4) == 0 || memcmp(h, "PK\5\6", 4) == 0))
        return ET_INPUT_ETRECORD;
    if (is_legacy(h, n))
        return ET_INPUT_LEGACY;
    if ((n > 0 && memchr(h, 0, n) == NULL) || (n >= 4 && memcmp(h, "\033Lua", 4) == 0))
        return ET_INPUT_TEXT;
    return ET_INPUT_UNKNOWN;
}

int et_inputs_assign(const char *const *files, int n, et_inputs *in, char *msg, size_t size)
{
    const char **other = malloc((size_t)(n > 0 ? n : 1) * sizeof *other);
    int n_other = 0, rc = 0;
    if (!other) {
        snprintf(msg, size, "out of memory");
        return 1;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        et_input_kind k = et_input_kind_of(files[i]);
        const char **role = NULL, *what = NULL;
        switch (k) {
        case ET_INPUT_MISSING:
            snprintf(msg, size, "%s: %s", files[i], strerror(errno ? errno : ENOENT));
            rc = 1;
            continue;
        case ET_INPUT_TEXT: /* never read as data, nor run as code */
            snprintf(msg, size, "%s: " ET_INPUT_TEXT_WHY, files[i]);
            rc = 1;
            continue;
        case ET_INPUT_DIRECTORY:
            if (in->etdumps) { /* several dumps: a directory's ETDumps (dumpset.h) */
                in->etdumps[in->n_etdumps++] = files[i];
                if (!in->etdump)
                    in->etdump = files[i];
                continue;
            }
            snprintf(msg, size, "%s: not a regular file", files[i]);
            rc = 1;
            continue;
        case ET_INPUT_ETDUMP:
            if (in->etdumps) { /* several dumps, one dataset */
                in->etdumps[in->n_etdumps++] = files[i];
                if (!in->etdump)
                    in->etdump = files[i];
                continue;
            }
            role = &in->etdump, what = "ETDumps";
            break;
        case ET_INPUT_ETRECORD: role = &in->etrecord, what = "ETRecords"; break;
        case ET_INPUT_BUNDLED: role = &in->bundled_program, what = "BundledPrograms"; break;
        case ET_INPUT_PROGRAM: role = &in->program, what = "programs"; break;
        default: other[n_other++] = files[i]; continue;
        }
        if (*role) {
            snprintf(msg, size, "two %s: %s and %s%s", what, *role, files[i],
                     role == &in->etdump ? " (etinspect diff A B compares two dumps)" : "");
            rc = 2;
        }
        *role = files[i];
    }
    for (int i = 0; i < n_other && rc == 0; i++) {
        const char **role = &in->debug_buffer;
        if (!in->etdump && !in->profile_results)
            role = et_input_kind_of(other[i]) == ET_INPUT_LEGACY ? &in->profile_results
                                                                 : &in->etdump;
        if (in->etdumps && role == &in->etdump) { /* read as an ETDump, which it is not */
            in->etdumps[in->n_etdumps++] = other[i];
        } else if (in->etdumps && role == &in->debug_buffer && !in->profile_results) {
            in->debug_buffers[in->n_debug_buffers++] = other[i];
            if (in->debug_buffer)
                continue;
        } else if (*role) {
            snprintf(msg, size,
                     "cannot tell what %s is: not an ETDump, ETRecord, BundledProgram or legacy "
                     "profiler dump, and %s is already the %s",
                     other[i], *role, role == &in->debug_buffer ? "debug buffer" : "dump");
            rc = 2;
        }
        *role = other[i];
    }
    free(other);
    return rc;
}

const char *et_input_kind_name(et_input_kind k)
{
    switch (k) {
    case ET_INPUT_ETDUMP: return "etdump";
    case ET_INPUT_LEGACY: return "profile_results";
    case ET_INPUT_ETRECORD: return "etrecord";
    case ET_INPUT_BUNDLED: return "bundled_program";
    case ET_INPUT_PROGRAM: return "program";
    case ET_INPUT_TEXT: return "text";
    case ET_INPUT_MISSING: return "missing";
    case ET_INPUT_DIRECTORY: return "directory";
    case ET_INPUT_UNKNOWN: break;
    }
    return "unknown";
}
