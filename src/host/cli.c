/*
 * cli.c - the inspector_cli-compatible command line (spec §1.8).
 *
 *   etinspect --etdump_path F [--etrecord_path R [--etrecord_method M]]
 *             [--debug_buffer_path B]
 *             [--source_time_scale ns] [--target_time_scale ms]
 *             [--tsv_path OUT] [--json OUT] [--quiet]
 *   etinspect --profile_results_path F [--time_scale ns]
 *             [--tsv_path OUT] [--json OUT] [--quiet]
 *
 * The second form reads a legacy profiler dump (spec §9) and prints the
 * legacy parser's tables (legacy_tables.h); --tsv_path writes the Inspector table
 * of its blocks, --json the legacy JSON document.
 *
 * Options follow Python argparse conventions, as the reference CLI does:
 * "--opt value" or "--opt=value", unambiguous prefixes of long options
 * ("--etdump" for "--etdump_path"), usage errors on stderr with exit 2.
 * Exit codes: 0 success, 1 bad input (unreadable or malformed files),
 * 2 usage (bad options, unsupported features).  The options[] table says
 * which modes take each option and what it needs; anything else typed is
 * a usage error naming it (check_options).
 */
#include "cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "files/dumpset.h"
#include "base/error.h"
#include "format/etrecord.h"
#include "output/frame.h"
#include "model/model.h"
#include "files/outfile.h"
#include "output/docjson.h"
#include "output/legacy_tables.h"
#include "output/memsummary.h"
#include "output/progsummary.h"
#include "output/modelexplorer.h"
#include "output/rows.h"
#include "output/parquet.h"
#include "output/sqlexport.h"
#include "base/shown.h"
#include "base/strbuf.h"
#include "base/timescale.h"
#include "output/trace.h"
#include "base/version.h"
#include "cli_metadata.h"
#include "host.h"
#include "inputs.h"
#include "progmain.h"
#include "stdout_guard.h"
#include "lua/etinspect.h"

enum {
    OPT_HELP, OPT_VERSION, OPT_ETDUMP, OPT_ETRECORD, OPT_DEBUG_BUFFER, OPT_SOURCE, OPT_TARGET,
    OPT_TSV, OPT_JSON, OPT_COMPARE, OPT_QUIET, OPT_PROFILE, OPT_TIME_SCALE, OPT_METHOD,
    OPT_TRACE, OPT_CYCLES_HZ, OPT_TRACE_RUNS, OPT_TRACE_WINDOW, OPT_TRACE_APART, OPT_TRACE_FORMAT, OPT_SQLITE,
    OPT_SQLITE_DUMP, OPT_SQLITE_REPLACE, OPT_HTML, OPT_MEMORY, OPT_BUNDLED, OPT_TEST_CASE,
    OPT_JSON_BUDGET, OPT_MAX_BROADCAST, OPT_MODEL_EXPLORER,
    OPT_CONVERTER, OPT_PLUGIN, OPT_PROGRAM, OPT_PARQUET,
    OPT_PARSER,
    OPT_COUNT
};

/* The modes of the command line, as bits of the mask of the modes that
 * take an option: one ETDump, several ETDumps as one dataset (docs/fleet.md),
 * a legacy profiler dump (--profile_results_path), an ETRecord alone (its
 * summary). */
enum { M_ETDUMP = 1, M_MANY = 2, M_LEGACY = 4, M_RECORD = 8, M_ALL = 15 };

/* Every option of --help, where it is taken and what it works with: an
 * option typed in a mode that does not take it, or without the option it
 * needs, is a usage error naming it (check_options) - nothing typed is
 * silently ignored.  tests/e2e/options.t walks --help against this. */
static const struct {
    const char *name;
    const char *metavar;    /* NULL: a flag without value */
    unsigned modes;         /* M_*: the modes that take it */
    int needs;              /* the option it only works with; 0 (OPT_HELP): none */
    const char *note;       /* NULL, or why the one-ETDump or legacy mode refuses it */
    const char *needs_note; /* NULL, or why it needs `needs` */
} options[OPT_COUNT] = {
    [OPT_HELP] = {"help", NULL, M_ALL},
    [OPT_VERSION] = {"version", NULL, M_ALL},
    [OPT_ETDUMP] = {"etdump_path", "ETDUMP_PATH", M_ETDUMP | M_MANY},
    [OPT_ETRECORD] = {"etrecord_path", "ETRECORD_PATH", M_ETDUMP | M_MANY | M_RECORD},
    [OPT_DEBUG_BUFFER] = {"debug_buffer_path", "DEBUG_BUFFER_PATH", M_ETDUMP | M_MANY},
    [OPT_SOURCE] = {"source_time_scale", "{ns,us,ms,s,cycles}", M_ETDUMP | M_MANY, 0,
                    "a legacy dump takes --time_scale"},
    [OPT_TARGET] = {"target_time_scale", "{ns,us,ms,s,cycles}", M_ETDUMP | M_MANY, 0,
                    "a legacy dump takes --time_scale"},
    [OPT_TSV] = {"tsv_path", "TSV_PATH", M_ETDUMP | M_MANY | M_LEGACY},
    [OPT_JSON] = {"json", "JSON_PATH", M_ETDUMP | M_MANY | M_LEGACY},
    [OPT_COMPARE] = {"compare_results", NULL, M_ETDUMP},
    [OPT_QUIET] = {"quiet", NULL, M_ETDUMP | M_MANY | M_LEGACY},
    [OPT_PROFILE] = {"profile_results_path", "PROFILE_RESULTS_PATH", M_LEGACY},
    [OPT_TIME_SCALE] = {"time_scale", "{ns,us,ms,cycles}", M_LEGACY, 0,
                        "an ETDump takes --source_time_scale and --target_time_scale"},
    [OPT_METHOD] = {"etrecord_method", "METHOD", M_ETDUMP | M_MANY, OPT_ETRECORD},
    [OPT_TRACE] = {"trace_path", "TRACE_PATH", M_ETDUMP},
    [OPT_CYCLES_HZ] = {"cycles_hz", "HZ", M_ETDUMP, OPT_TRACE},
    [OPT_TRACE_RUNS] = {"trace_runs", "RUNS", M_ETDUMP, OPT_TRACE},
    [OPT_TRACE_WINDOW] = {"trace_window", "START_US:END_US", M_ETDUMP, OPT_TRACE},
    [OPT_TRACE_APART] = {"trace_runs_apart", NULL, M_ETDUMP, OPT_TRACE},
    [OPT_TRACE_FORMAT] = {"trace_format", "{json,perfetto}", M_ETDUMP, OPT_TRACE},
    [OPT_SQLITE] = {"sqlite_path", "SQLITE_PATH", M_ETDUMP | M_MANY},
    [OPT_SQLITE_DUMP] = {"sqlite_dump", "NAME", M_ETDUMP, OPT_SQLITE},
    [OPT_SQLITE_REPLACE] = {"sqlite_replace", NULL, M_ETDUMP, OPT_SQLITE_DUMP, NULL,
                            "the name whose dump it replaces"},
    [OPT_HTML] = {"html_path", "HTML_PATH", M_ETDUMP},
    [OPT_MEMORY] = {"memory", NULL, M_ETDUMP, 0,
                    "the legacy tables show the memory per allocator"},
    [OPT_BUNDLED] = {"bundled_program_path", "BUNDLED_PROGRAM_PATH", M_ETDUMP},
    [OPT_TEST_CASE] = {"bundled_test_case", "K", M_ETDUMP, OPT_BUNDLED},
    [OPT_JSON_BUDGET] = {"etrecord_json_budget", "N", M_ETDUMP | M_MANY | M_RECORD, OPT_ETRECORD},
    [OPT_MAX_BROADCAST] = {"max_broadcast_elements", "N", M_ETDUMP | M_MANY, 0,
                           "a legacy dump has no tensors"},
    [OPT_MODEL_EXPLORER] = {"model_explorer_path", "DIR", M_ETDUMP, OPT_ETRECORD, NULL,
                            "the graph is the ETRecord's"},
    [OPT_CONVERTER] = {"delegate_time_scale_converter", "CONV", M_ETDUMP | M_MANY, 0,
                       "a legacy dump has no delegated events"},
    [OPT_PLUGIN] = {"plugin", "FILE", M_ETDUMP | M_MANY, OPT_CONVERTER, NULL,
                    "or --delegate_metadata_parser: a plugin registers the converters and "
                    "parsers they name"},
    [OPT_PARSER] = {"delegate_metadata_parser", "PARSER", M_ETDUMP, 0,
                    "a legacy dump has no delegated events"},
    [OPT_PROGRAM] = {"program_path", "PROGRAM_PATH", M_ETDUMP},
    [OPT_PARQUET] = {"parquet_path", "DIR", M_ETDUMP | M_MANY},
};

static const char usage_line[] =
    "usage: etinspect [-h] [--version] --etdump_path ETDUMP_PATH [--etrecord_path ETRECORD_PATH]\n"
    "                 [--etrecord_method METHOD] [--debug_buffer_path DEBUG_BUFFER_PATH]\n"
    "                 [--source_time_scale {ns,us,ms,s,cycles}]\n"
    "                 [--target_time_scale {ns,us,ms,s,cycles}] [--tsv_path TSV_PATH]\n"
    "                 [--json JSON_PATH] [--trace_path TRACE_PATH] [--cycles_hz HZ]\n"
    "                 [--trace_runs RUNS] [--trace_window START_US:END_US] [--trace_runs_apart]\n"
    "                 [--trace_format {json,perfetto}]\n"
    "                 [--sqlite_path SQLITE_PATH [--sqlite_dump NAME [--sqlite_replace]]]\n"
    "                 [--html_path HTML_PATH] [--model_explorer_path DIR] [--memory]\n"
    "                 [--parquet_path DIR] [--quiet]\n"
    "       etinspect --etdump_path DUMPS [--etdump_path DUMPS ...] [--etrecord_path ...]\n"
    "                 [--debug_buffer_path B ...] [--tsv_path ...] [--json ...]\n"
    "                 [--sqlite_path ...] [--parquet_path DIR] [--quiet]\n"
    "       etinspect --profile_results_path PROFILE_RESULTS_PATH\n"
    "                 [--time_scale {ns,us,ms,cycles}] [--tsv_path TSV_PATH]\n"
    "                 [--json JSON_PATH] [--quiet]\n"
    "       etinspect FILE... [options]\n"
    "       etinspect SCRIPT.lua | NAME | - [ARGS...]\n"
    "       etinspect [-e CODE] [-l MODULE] [-i]\n"
    "       etinspect --list-scripts | --help NAME\n";

static void print_help(FILE *out)
{
    fputs(usage_line, out);
    fputs("\n"
          "Read an ExecuTorch ETDump and print the Inspector's table of event blocks\n"
          "(the table of print_data_tabular), optionally writing it as TSV and the\n"
          "whole model as JSON; or run Lua over it: report scripts, code, the REPL.\n"
          "\n"
          "inputs by name:\n"
          "  FILE...               ETDumps, legacy profiler dumps, ETRecords,\n"
          "                        BundledPrograms and debug buffers, told apart by\n"
          "                        their content: 'etinspect m.etdp m.etrecord d.bin'\n"
          "                        is '--etdump_path m.etdp --etrecord_path m.etrecord\n"
          "                        --debug_buffer_path d.bin'; several ETDumps (or\n"
          "                        directories of them) are one table with a leading\n"
          "                        dump column, as with repeated --etdump_path, their\n"
          "                        debug buffers paired in order; an ETRecord alone\n"
          "                        prints a summary of it\n"
          "\n"
          "options:\n"
          "  -h, --help            show this help message and exit\n"
          "  --version             print the version and exit\n"
          "  --etdump_path ETDUMP_PATH\n"
          "                        ETDump file (size-prefixed or plain FlatBuffer, ED00);\n"
          "                        repeated, a directory (its ETDumps) or a pattern\n"
          "                        ('runs/*.etdp'): several dumps as one table, with a\n"
          "                        leading dump column\n"
          "  --etrecord_path ETRECORD_PATH\n"
          "                        ETRecord file: link events to the exported graph\n"
          "                        (debug handles, op types, stack traces, module\n"
          "                        hierarchy)\n"
          "  --etrecord_method METHOD\n"
          "                        the ETRecord method to link the blocks to (default:\n"
          "                        per block: Execute::<method>, else the method whose\n"
          "                        maps cover the block's events, else forward)\n"
          "  --etrecord_json_budget N\n"
          "                        JSON values per ETRecord entry (default 8000000; the\n"
          "                        caps on inflated entries follow it: 16 bytes each)\n"
          "  --debug_buffer_path DEBUG_BUFFER_PATH\n"
          "                        debug buffer holding the tensors of debug events\n"
          "                        (several dumps: one per dump, in their order)\n"
          "  --bundled_program_path BUNDLED_PROGRAM_PATH\n"
          "                        BundledProgram (.bpte) whose expected outputs are the\n"
          "                        blocks' reference outputs (by bundled_input_index)\n"
          "  --bundled_test_case K its test case (0-based) for runs that carry no\n"
          "                        bundled_input_index (ETDumpGen never writes it)\n"
          "  --program_path PROGRAM_PATH\n"
          "                        ExecuTorch program (.pte) the dump ran: each event's\n"
          "                        instruction (operator or delegate backend); alone,\n"
          "                        a summary of the program (docs/programs.md)\n"
          "  --source_time_scale {ns,us,ms,s,cycles}\n"
          "                        unit of the raw timestamps (default: ns)\n"
          "  --target_time_scale {ns,us,ms,s,cycles}\n"
          "                        unit of the table's durations (default: ms)\n"
          "  --tsv_path TSV_PATH   also write the table as tab-separated values\n"
          "  --json JSON_PATH      also write every block and event as JSON\n"
          "  --compare_results     compare each block's run outputs with its reference\n"
          "                        outputs (SNR, MSE, cosine similarity; needs\n"
          "                        --bundled_program_path and a debug buffer)\n"
          "  -q, --quiet           do not print the table\n"
          "  --memory              also print the memory table: per block and allocator,\n"
          "                        allocations, bytes and the largest allocation\n"
          "\n"
          "beyond the reference:\n"
          "  --trace_path TRACE_PATH\n"
          "                        write the timeline as Chrome Trace Event JSON\n"
          "                        (Perfetto UI, chrome://tracing); a path ending in\n"
          "                        .pftrace or .perfetto-trace: Perfetto's native format\n"
          "  --cycles_hz HZ        clock frequency, to place cycle counts in time\n"
          "  --trace_runs RUNS     only these runs (RunData indices: 0-3,7)\n"
          "  --trace_window START_US:END_US\n"
          "                        only slices overlapping this window (microseconds)\n"
          "  --trace_runs_apart    one trace process per run instead of per block\n"
          "  --trace_format {json,perfetto}\n"
          "                        the trace's format, whatever the path's extension\n"
          "  --sqlite_path SQLITE_PATH\n"
          "                        export to an SQLite database (added to an existing one)\n"
          "  --sqlite_dump NAME    the dump's name in the database (default: the file name,\n"
          "                        or more of its path when another file's dump has it)\n"
          "  --sqlite_replace      replace another file's dump of the --sqlite_dump name\n"
          "  --parquet_path DIR    export the SQLite export's tables as a Parquet dataset:\n"
          "                        DIR/TABLE/part-ID.parquet, one file per table and\n"
          "                        dump, ID the dump's content hash (docs/fleet.md)\n"
          "  --html_path HTML_PATH write a self-contained HTML report\n"
          "  --model_explorer_path DIR\n"
          "                        write the ETRecord's graphs and the times of their\n"
          "                        nodes as Model Explorer files into DIR (graph.json,\n"
          "                        node_data_*.json; needs --etrecord_path)\n"
          "  --delegate_time_scale_converter CONV\n"
          "                        convert the ticks of delegated events (a delegate on\n"
          "                        its own clock): NAME, of etinspect.converters or\n"
          "                        registered by a plugin, or FILE.lua returning\n"
          "                        function(event_name, ticks) -> time in the target unit\n"
          "  --delegate_metadata_parser PARSER\n"
          "                        parse the delegate debug metadata of delegated events:\n"
          "                        NAME, of etinspect.parsers or registered by a plugin,\n"
          "                        or FILE.lua returning function(raw_list, event) ->\n"
          "                        table; shown by --json, --html_path and --trace_path\n"
          "  --plugin FILE         a Lua file run first, to register converters and\n"
          "                        parsers by name\n"
          "                        (besides $XDG_CONFIG_HOME/etinspect/plugins/*.lua)\n"
          "  --max_broadcast_elements N\n"
          "                        the broadcast budget: the most elements a tensor\n"
          "                        that repeats its bytes (zero strides), or a\n"
          "                        broadcast comparison, may have (default 1048576)\n"
          "\n"
          "legacy profiler dumps (prof_result_t blocks, before ETDump):\n"
          "  --profile_results_path PROFILE_RESULTS_PATH\n"
          "                        read this dump instead of an ETDump and print the\n"
          "                        legacy parser's tables: events per iteration,\n"
          "                        framework tax, memory per allocator\n"
          "  --time_scale {ns,us,ms,cycles}\n"
          "                        unit of the dump's ticks (default: ns); times are\n"
          "                        shown in ms, cycles as cycles\n"
          "\n"
          "Lua (the etinspect module is the global 'etinspect'):\n"
          "  SCRIPT.lua [ARGS...]  run a Lua script (or any existing file named with a\n"
          "                        '/'); '-' reads standard input: a script when it\n"
          "                        is text, else a dump (as --etdump_path -)\n"
          "  NAME [ARGS...]        run a bundled report script by name (before any\n"
          "                        file of that name), else a user script NAME.lua of\n"
          "                        $ETINSPECT_PATH or $XDG_CONFIG_HOME/etinspect/scripts\n"
          "  --list-scripts        list the bundled and the user report scripts\n"
          "  --help NAME           a report script's arguments (NAME or SCRIPT.lua)\n"
          "  -e CODE               run CODE (may be repeated)\n"
          "  -l MODULE             require MODULE into the global MODULE\n"
          "  -i                    open the REPL after the above\n"
          "  (no argument)         on a terminal: the REPL, Lua with Tab completion;\n"
          "                        .open FILE... binds insp, .help lists the commands;\n"
          "                        it first runs $XDG_CONFIG_HOME/etinspect/init.lua\n"
          "  --no-init             the REPL without that startup file\n"
          "\n"
          "examples:\n"
          "  etinspect model.etdp                       the table\n"
          "  etinspect model.etdp model.etrecord --tsv_path out.tsv\n"          "  etinspect runs/*.etdp --tsv_path all.tsv   many dumps, one table\n"
          "  etinspect --etdump_path c.etdp --source_time_scale cycles \\\n"
          "            --target_time_scale cycles\n"
          "  etinspect model.etrecord                   what the ETRecord holds\n"
          "  etinspect top_ops model.etdp --top 10      a report script\n"
          "  etinspect diff a.etdp b.etdp               A/B comparison\n"
          "  etinspect -e 'print(#etinspect.Inspector{etdump_path = \"model.etdp\"})'\n"
          "  etinspect                                  the REPL: .open model.etdp\n"
          "\n"
          "Exit status: 0 success, 1 unreadable or malformed input, 2 usage error.\n",
          out);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs(usage_line, stderr);
    fputs("etinspect: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

/* The options naming a file the command line writes. */
static const int output_options[] = {OPT_TSV, OPT_JSON, OPT_TRACE, OPT_SQLITE, OPT_HTML};
#define N_OUTPUTS (sizeof output_options / sizeof *output_options)

static bool is_output(int opt)
{
    for (size_t i = 0; i < N_OUTPUTS; i++)
        if (output_options[i] == opt)
            return true;
    return false;
}

/* Does option `opt` take a path (an input or an output)? */
static bool is_path_option(int opt)
{
    return is_output(opt) || opt == OPT_MODEL_EXPLORER || opt == OPT_ETDUMP || opt == OPT_ETRECORD ||
           opt == OPT_DEBUG_BUFFER || opt == OPT_PROFILE || opt == OPT_BUNDLED;
}

/* Two outputs naming one file (outfile.h, et_outfile_clash: the same
 * file, or the same path where none is yet) would write one over the
 * other: a usage error naming both, before anything is read or written.
 * Returns 0 or 2. */
static int check_clashes(const char *const *val)
{
    for (size_t i = 0; i < N_OUTPUTS; i++)
        for (size_t j = i + 1; j < N_OUTPUTS; j++) {
            int a = output_options[i], b = output_options[j];
            if (val[a] && val[b] && et_outfile_clash(val[a], val[b])) {
                fprintf(stderr, "%setinspect: error: arguments --%s and --%s: both name the "
                                "file '%s'; each output needs a file of its own\n",
                        usage_line, options[a].name, options[b].name, val[b]);
                return 2;
            }
        }
    /* the Model Explorer directory, and the files it receives */
    const char *dir = val[OPT_MODEL_EXPLORER];
    for (size_t i = 0; dir && i < N_OUTPUTS; i++) {
        int a = output_options[i];
        if (!val[a])
            continue;
        bool clash = et_outfile_clash(val[a], dir);
        for (size_t f = 0; !clash && et_mx_files[f]; f++) {
            et_strbuf p = {0};
            et_sb_adds(&p, dir);
            et_sb_addc(&p, '/');
            et_sb_adds(&p, et_mx_files[f]);
            clash = !p.failed && et_outfile_clash(val[a], p.p);
            et_sb_free(&p);
        }
        if (clash) {
            fprintf(stderr, "%setinspect: error: arguments --%s and --%s: '%s' is the Model "
                            "Explorer directory or one of its files; each output needs a "
                            "file of its own\n",
                    usage_line, options[a].name, options[OPT_MODEL_EXPLORER].name, val[a]);
            return 2;
        }
    }
    return 0;
}

/* Before anything is written: every output given may be written
 * (et_outfile_check: not an input, not a directory, no other hard links,
 * a descriptor open for writing; for --sqlite_path, which is written as a
 * database, the input guard alone).  Returns 0, or the exit status after
 * printing the error. */
static int check_outputs(const char *const *val, const char *const *inputs)
{
    for (size_t i = 0; i < N_OUTPUTS; i++) {
        int o = output_options[i];
        et_error err;
        if (!val[o])
            continue;
        int rc = o == OPT_SQLITE ? et_outfile_guard(val[o], inputs, &err)
                                 : et_outfile_check(val[o], inputs, &err);
        if (rc != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            return err.kind == ET_ERR_USAGE ? 2 : 1;
        }
    }
    et_error err;
    if (val[OPT_MODEL_EXPLORER] && et_mx_check_dir(val[OPT_MODEL_EXPLORER], inputs, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return err.kind == ET_ERR_USAGE ? 2 : 1;
    }
    return 0;
}

/* The options of the reference's inspector_cli (spec §1.8): a prefix that
 * names one of them alone means it, as it does there, whatever options
 * etinspect adds ("--etrecord" is --etrecord_path, as in the reference,
 * though --etrecord_method and --etrecord_json_budget start with it too). */
static const int reference_options[] = {OPT_ETDUMP, OPT_ETRECORD, OPT_DEBUG_BUFFER, OPT_SOURCE,
                                        OPT_TARGET, OPT_TSV, OPT_COMPARE};

static bool is_reference_option(int opt)
{
    for (size_t i = 0; i < sizeof reference_options / sizeof *reference_options; i++)
        if (reference_options[i] == opt)
            return true;
    return false;
}

/* Match "--name" or a prefix of it: the option it names alone, or the one
 * reference option among those it starts (reference_options); -1 unknown,
 * -2 ambiguous (then `candidates`, of `size` bytes, lists them as
 * argparse does: "--etrecord_method, --etrecord_json_budget"). */
static int match_option(const char *name, size_t len, char *candidates, size_t size)
{
    int found = -1, n = 0, n_ref = 0, ref = -1;
    for (int i = 0; i < OPT_COUNT; i++) {
        if (strlen(options[i].name) == len && strncmp(options[i].name, name, len) == 0)
            return i;
        if (strncmp(options[i].name, name, len) == 0) {
            found = i;
            n++;
            if (is_reference_option(i))
                ref = i, n_ref++;
        }
    }
    if (n <= 1)
        return found;
    if (n_ref == 1)
        return ref;
    size_t used = 0;
    candidates[0] = 0;
    for (int i = 0; i < OPT_COUNT && used < size; i++)
        if (strncmp(options[i].name, name, len) == 0) {
            int k = snprintf(candidates + used, size - used, "%s--%s", used ? ", " : "",
                             options[i].name);
            used += k > 0 ? (size_t)k : 0;
        }
    return -2;
}

/* Refuse what mode `mode` (one M_* bit) does not take, and options without
 * the option they need (the options[] table).  Returns 0, or 2 after
 * printing the usage error naming the first such option. */
static int check_options(unsigned mode, const char *const *val, const bool *flag)
{
    for (int o = 0; o < OPT_COUNT; o++) {
        if (!val[o] && !flag[o])
            continue;
        const char *why = NULL;
        if (!(options[o].modes & mode)) {
            if (mode == M_RECORD)
                why = "needs an ETDump (an ETRecord alone is summarised)";
            else if (mode == M_MANY)
                why = "not allowed with several dumps";
            else if (mode == M_LEGACY)
                why = "not allowed with --profile_results_path";
            else
                why = "only with --profile_results_path";
            fprintf(stderr, "%setinspect: error: argument --%s: %s", usage_line,
                    options[o].name, why);
            if (options[o].note && (mode == M_LEGACY || mode == M_ETDUMP))
                fprintf(stderr, " (%s)", options[o].note);
            fputc('\n', stderr);
            return 2;
        }
        int need = options[o].needs;
        if (o == OPT_PLUGIN && val[OPT_PARSER]) /* a plugin registers parsers too */
            need = 0;
        if (need && !val[need] && !flag[need]) {
            fprintf(stderr, "%setinspect: error: argument --%s: only with --%s", usage_line,
                    options[o].name, options[need].name);
            if (options[o].needs_note)
                fprintf(stderr, " (%s)", options[o].needs_note);
            fputc('\n', stderr);
            return 2;
        }
    }
    return 0;
}

/* A file given to an option that takes another kind of file (an ETRecord
 * as --etdump_path): a usage error saying what it is and which option
 * takes it (inputs.h, et_input_misplaced), before the reader's complaint
 * about its bytes.  `paths` are the option's `n` values.  Returns 0 or 2. */
static int check_kind(int opt, et_input_kind expected, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char msg[1024];
        if (!paths[i] || strcmp(paths[i], "-") == 0)
            continue;
        if (et_input_misplaced(paths[i], et_input_kind_of(paths[i]), expected, msg, sizeof msg)) {
            fprintf(stderr, "etinspect: error: argument --%s: %s\n", options[opt].name, msg);
            return 2;
        }
    }
    return 0;
}

/* check_kind for every input option given in `val` but the dumps. */
static int check_kinds(const char *const *val)
{
    int rc = check_kind(OPT_PROFILE, ET_INPUT_LEGACY, &val[OPT_PROFILE], 1);
    if (rc == 0)
        rc = check_kind(OPT_ETRECORD, ET_INPUT_ETRECORD, &val[OPT_ETRECORD], 1);
    if (rc == 0)
        rc = check_kind(OPT_BUNDLED, ET_INPUT_BUNDLED, &val[OPT_BUNDLED], 1);
    if (rc == 0)
        rc = check_kind(OPT_PROGRAM, ET_INPUT_PROGRAM, &val[OPT_PROGRAM], 1);
    return rc;
}

static void print_warnings(const et_inspector *insp)
{
    for (size_t i = 0; i < insp->warnings.n; i++) {
        /* control characters escaped (base/shown.h), as every message */
        fputs("etinspect: warning: ", stderr);
        et_fput_shown(stderr, insp->warnings.items[i], strlen(insp->warnings.items[i]));
        fputc('\n', stderr);
    }
}

/* Exit code for a core error. */
static int exit_code(const et_error *err);

/* Open the inspector of `o` and print its warnings; on failure print the
 * error and store the exit code in *rc (2 usage, 1 input) and return NULL. */
static et_inspector *open_inspector(const et_inspector_options *o, int *rc)
{
    et_error err;
    et_inspector *insp = et_inspector_open(o, &err);
    if (!insp) {
        static const char data_label[] = "<etdump_data>"; /* the core's, for bytes */
        size_t n = sizeof data_label - 1;
        if (o->etdump_data && strncmp(err.msg, data_label, n) == 0) /* standard input */
            fprintf(stderr, "etinspect: error: " ET_STDIN_LABEL "%s\n", err.msg + n);
        else
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
        *rc = exit_code(&err);
        return NULL;
    }
    print_warnings(insp);
    return insp;
}

/* Exit code for a core error. */
static int exit_code(const et_error *err)
{
    return err->kind == ET_ERR_USAGE ? 2 : 1;
}

typedef int (*writer_fn)(const et_inspector *insp, const et_frame *f, FILE *out);

/* The table as TSV: the frame `f` when the table was built for printing,
 * else streamed from `insp` a few thousand rows at a time (rows.h), so that
 * --quiet --tsv_path never holds every row.  On failure errno says why for
 * the caller's message (ENOMEM: out of memory while streaming). */
static int write_tsv(const et_inspector *insp, const et_frame *f, FILE *out)
{
    if (f)
        return et_frame_write_tsv(f, out);
    et_error err;
    if (et_report_write_tsv(insp, true, true, true, out, &err) == 0)
        return 0;
    if (err.kind == ET_ERR_NOMEM)
        errno = ENOMEM;
    return -1;
}

/* --delegate_metadata_parser's results (cli_metadata.h), for --json,
 * --trace_path and the HTML report; parser_ref 0: no parser. */
static et_cli_md cli_md;

static int write_json(const et_inspector *insp, const et_frame *f, FILE *out)
{
    (void)f;
    if (cli_md.parser_ref) {
        et_json_metadata jm = {et_cli_md_text, &cli_md};
        return et_report_write_json_md(insp, out, &jm);
    }
    return et_report_write_json(insp, out);
}

/* Write one output file safely (temporary file, then rename). */
static int write_output(const char *path, const char *const *inputs, writer_fn fn,
                        const et_inspector *insp, const et_frame *f)
{
    et_error err;
    et_outfile of;
    if (et_outfile_open(&of, path, inputs, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return exit_code(&err);
    }
    if (fn(insp, f, of.fp) != 0) {
        et_outfile_fail(&of, &err);
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return 1;
    }
    if (et_outfile_commit(&of, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* After the table: --tsv_path (the frame `f`) and --json (written by
 * `json`), then flush standard output.  Returns the exit status. */
static int write_files(const char *const *val, const char *const *inputs,
                       const et_inspector *insp, const et_frame *f, writer_fn json)
{
    int rc = 0;
    if (val[OPT_TSV])
        rc = write_output(val[OPT_TSV], inputs, write_tsv, insp, f);
    if (rc == 0 && val[OPT_JSON])
        rc = write_output(val[OPT_JSON], inputs, json, insp, f);
    if (rc == 0 && fflush(stdout) != 0) {
        rc = et_stdout_guard_report();
    }
    return rc;
}

static int write_legacy_json(const et_inspector *insp, const et_frame *f, FILE *out)
{
    (void)f;
    return et_report_write_legacy_json(insp, out);
}

/* --profile_results_path: a legacy profiler dump. */
static int legacy_main(const char *const *val, const bool *flag)
{
    int crc = check_options(M_LEGACY, val, flag);
    if (crc == 0)
        crc = check_kinds(val);
    if (crc != 0)
        return crc;
    et_error err;
    et_inspector_options o;
    et_inspector_options_init(&o);
    if (val[OPT_TIME_SCALE] &&
        (et_time_scale_parse(val[OPT_TIME_SCALE], &o.source_time_scale, &err) != 0 ||
         o.source_time_scale == ET_TS_S))
        return usage_error("argument --time_scale: invalid choice: '%s' (choose from 'ns', "
                           "'us', 'ms', 'cycles')", val[OPT_TIME_SCALE]);
    o.profile_results_path = val[OPT_PROFILE];
    const char *inputs[2] = {val[OPT_PROFILE], NULL};
    crc = check_outputs(val, inputs);
    if (crc != 0)
        return crc;
    int open_rc;
    et_inspector *insp = open_inspector(&o, &open_rc);
    if (!insp)
        return open_rc;
    int rc = 0;
    if (!flag[OPT_QUIET] && et_report_write_legacy_tables(insp, stdout, isatty(STDOUT_FILENO)) != 0) {
        rc = et_stdout_guard_report();
    }
    et_frame *f = NULL;
    if (rc == 0 && val[OPT_TSV] && !(f = et_report_frame(insp, true, true, &err))) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        rc = 1;
    }
    if (rc == 0)
        rc = write_files(val, inputs, insp, f, write_legacy_json);
    et_frame_free(f);
    et_inspector_free(insp);
    return rc;
}

/* --debug_buffer_path beside a dump that logged no debug events: the
 * buffer is never read, which a warning says (nothing typed is silently
 * ignored). */
static void warn_unused_buffer(const et_inspector *insp, const char *path)
{
    for (size_t b = 0; b < insp->n_blocks; b++)
        for (size_t e = 0; e < insp->blocks[b].n_events; e++)
            if (insp->blocks[b].events[e].has_debug_data)
                return;
    fputs("etinspect: warning: --debug_buffer_path ", stderr);
    et_fput_shown(stderr, path, strlen(path));
    fputs(": the dump logged no debug events (intermediate or program outputs), so the "
          "debug buffer is not read\n", stderr);
}

/* --memory: the memory table (memsummary.h) after the main table. */
static int print_memory(const et_inspector *insp)
{
    et_error err;
    et_frame *m = et_report_memory_frame(insp, &err);
    if (!m) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return 1;
    }
    int rc = 0;
    if (et_frame_nrows(m) == 0) /* nothing typed is silently ignored */
        fputs("etinspect: warning: --memory: the dump holds no allocation events (the "
              "runtime logs them only when a memory allocator is tracked: "
              "ETDumpGen::track_allocator and track_allocation)\n", stderr);
    else if (et_frame_write_grid(m, stdout) != 0 || fflush(stdout) != 0) {
        rc = et_stdout_guard_report();
    }
    et_frame_free(m);
    if (rc == 0 && insp->program) { /* the planned memory beside (progsummary.h) */
        et_strbuf sb = {0};
        et_progsum_planned(insp, &sb);
        if (sb.failed || fwrite(sb.p, 1, sb.n, stdout) != sb.n || fflush(stdout) != 0)
            rc = sb.failed ? (fprintf(stderr, "etinspect: error: out of memory\n"), 1)
                           : et_stdout_guard_report();
        et_sb_free(&sb);
    }
    return rc;
}

/* --trace_path and its options (trace.h). */
static int write_trace(const char *const *val, const bool *flag, const char *const *inputs,
                       const et_inspector *insp)
{
    et_trace_options to;
    et_trace_options_init(&to);
    to.runs = val[OPT_TRACE_RUNS];
    to.runs_apart = flag[OPT_TRACE_APART];
    to.format = et_trace_format_of_path(val[OPT_TRACE]);
    if (cli_md.text) { /* --delegate_metadata_parser's results in the slices' args */
        to.metadata = et_cli_md_trace;
        to.metadata_ud = &cli_md;
    }
    if (val[OPT_TRACE_FORMAT] && strcmp(val[OPT_TRACE_FORMAT], "json") != 0 &&
        strcmp(val[OPT_TRACE_FORMAT], "perfetto") != 0)
        return usage_error("argument --trace_format: invalid choice: '%s' (choose from 'json', "
                           "'perfetto')", val[OPT_TRACE_FORMAT]);
    if (val[OPT_TRACE_FORMAT])
        to.format = strcmp(val[OPT_TRACE_FORMAT], "json") == 0 ? ET_TRACE_JSON : ET_TRACE_PERFETTO;
    if (val[OPT_CYCLES_HZ]) {
        char *end;
        to.cycles_hz = strtod(val[OPT_CYCLES_HZ], &end);
        if (*end || !(to.cycles_hz > 0) || to.cycles_hz > 1e15)
            return usage_error("argument --cycles_hz: expected a frequency in Hz, found '%s'",
                               val[OPT_CYCLES_HZ]);
    }
    if (val[OPT_TRACE_WINDOW]) {
        char *end;
        const char *w = val[OPT_TRACE_WINDOW];
        to.window_start_us = strtod(w, &end);
        if (end == w || *end != ':' || (to.window_end_us = strtod(end + 1, &end), *end) ||
            !(to.window_end_us > to.window_start_us))
            return usage_error("argument --trace_window: expected START_US:END_US with START "
                               "below END, found '%s'", w);
    }
    et_error err;
    et_outfile of;
    size_t n_slices = 0;
    to.n_slices = &n_slices;
    if (et_outfile_open(&of, val[OPT_TRACE], inputs, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return exit_code(&err);
    }
    if (et_trace_write(insp, &to, of.fp, &err) != 0) {
        if (err.kind == ET_ERR_IO) /* name the path and the reason */
            et_outfile_fail(&of, &err);
        else
            et_outfile_abort(&of);
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return exit_code(&err);
    }
    if (et_outfile_commit(&of, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return 1;
    }
    if (val[OPT_TRACE_WINDOW] && n_slices == 0) {
        fputs("etinspect: warning: --trace_window ", stderr);
        et_fput_shown(stderr, val[OPT_TRACE_WINDOW], strlen(val[OPT_TRACE_WINDOW]));
        fputs(": no slice overlaps the window, so the trace holds none (START_US and "
              "END_US are microseconds on the trace's time axis, as the trace shows them)\n", stderr);
    }
    return 0;
}

/* Push the table of the Inspector's options that the command line opened
 * it with (what et_lua_adopt_inspector records: its paths and method), from
 * the options typed (`val`). */
static void push_open_options(lua_State *L, const char *const *val)
{
    static const struct {
        int opt;
        const char *key;
    } paths[] = {{OPT_ETDUMP, "etdump_path"},
                 {OPT_DEBUG_BUFFER, "debug_buffer_path"},
                 {OPT_BUNDLED, "bundled_program_path"},
                 {OPT_METHOD, "etrecord_method"}};
    lua_createtable(L, 0, 6);
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        if (val[paths[i].opt]) {
            lua_pushstring(L, val[paths[i].opt]);
            lua_setfield(L, -2, paths[i].key);
        }
}

/* Hand `insp` to Lua (it owns it from then on) under a protected call:
 * pushes the Inspector userdata and returns LUA_OK, or pushes the error
 * and returns its code - freeing `insp` when Lua did not take it. */
static int adopt_inspector(lua_State *L, et_inspector *insp, const char *const *val)
{
    bool owned = false;
    if (et_cli_md_push_inspector(&cli_md)) /* adopted for the parser already */
        return LUA_OK;
    lua_pushcfunction(L, et_lua_adopt_inspector);
    lua_pushlightuserdata(L, insp);
    push_open_options(L, val);
    lua_pushlightuserdata(L, &owned);
    int rc = lua_pcall(L, 3, 1, 0);
    if (rc != LUA_OK && !owned)
        et_inspector_free(insp);
    return rc;
}

static void release_inspector(et_inspector *insp);

/* The outputs the Lua library writes, on the inspector the command line
 * built (one model for every output; `insp` is taken over and freed), in
 * the run's Lua state (et_host_lua): --compare_results
 * (insp:compare_results(), printed after the table) and --html_path
 * (insp:write_html). */
static int lua_outputs(const char *const *val, const bool *flag, const char *const *inputs,
                       et_inspector *insp)
{
    et_error gerr; /* any spelling of an input: the core's output guard */
    if (val[OPT_HTML] && et_outfile_guard(val[OPT_HTML], inputs, &gerr) != 0) {
        release_inspector(insp);
        fprintf(stderr, "etinspect: error: %s\n", gerr.msg);
        return 2;
    }
    lua_State *L = et_host_lua();
    if (!L) {
        release_inspector(insp);
        fprintf(stderr, "etinspect: error: out of memory\n");
        return 1;
    }
    int top = lua_gettop(L);
    static const char chunk[] =
        "local insp <close>, html, compare = ...\n"
        "local etinspect = require('etinspect')\n"
        "etinspect.on_warning(function() end)\n"
        "if compare then\n"
        "  local f = insp:compare_results()\n"
        "  if #f == 0 then\n"
        "    io.stderr:write('etinspect: warning: --compare_results: no event block has both '\n"
        "      .. 'run outputs and reference outputs (they come from --bundled_program_path, '\n"
        "      .. 'for runs with a bundled_input_index or --bundled_test_case)\\n')\n"
        "  else\n"
        "    io.write(f:to_string())\n"
        "  end\n"
        "end\n"
        "if html then\n"
        "  local ok, e = pcall(insp.write_html, insp, html)\n" /* no position: */
        "  if not ok then error(e, 0) end\n"                   /* a user error */
        "end\n";
    int rc = luaL_loadbufferx(L, chunk, sizeof chunk - 1, "=[etinspect]", "t");
    if (rc != LUA_OK)
        release_inspector(insp);
    else if ((rc = adopt_inspector(L, insp, val)) == LUA_OK) {
        lua_pushstring(L, val[OPT_HTML]); /* NULL: nil */
        lua_pushboolean(L, flag[OPT_COMPARE]);
        /* the error alone, no traceback: these are the user's errors */
        rc = lua_pcall(L, 3, 0, 0);
    }
    if (rc != LUA_OK)
        fprintf(stderr, "etinspect: error: %s\n", lua_tostring(L, -1));
    if (fflush(stdout) != 0 && rc == LUA_OK) {
        et_stdout_guard_report();
        rc = -1;
    }
    lua_settop(L, top);
    return rc == LUA_OK ? 0 : 1;
}

/* `--etdump_path -` / `etinspect -`: the dump is standard input, read
 * whole into memory within an ETDump file's budget (host.h), into
 * o->etdump_data.  Returns 0, or the exit status after printing. */
static int read_stdin_dump(et_inspector_options *o)
{
    et_input_kind k = et_host_stdin_kind();
    char msg[1024];
    if (et_input_misplaced(ET_STDIN_LABEL, k, ET_INPUT_ETDUMP, msg, sizeof msg)) {
        fprintf(stderr, "etinspect: error: argument --etdump_path: %s\n", msg);
        return 2;
    }
    const unsigned char *data;
    size_t size;
    if (et_host_stdin_all(&data, &size, msg, sizeof msg) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", msg);
        return 1;
    }
    o->etdump_path = NULL;
    o->etdump_data = data;
    o->etdump_size = size;
    return 0;
}

/* The inspector options of the command line, the inputs' paths aside.
 * Returns 0, or the exit status after printing the error. */
static int inspector_options(const char *const *val, et_inspector_options *o)
{
    et_error err;
    et_inspector_options_init(o);
    if (val[OPT_SOURCE] && et_time_scale_parse(val[OPT_SOURCE], &o->source_time_scale, &err) != 0)
        return usage_error("argument --source_time_scale: %s", err.msg);
    if (val[OPT_TARGET] && et_time_scale_parse(val[OPT_TARGET], &o->target_time_scale, &err) != 0)
        return usage_error("argument --target_time_scale: %s", err.msg);
    if (val[OPT_CYCLES_HZ] && o->source_time_scale != ET_TS_CYCLES)
        return usage_error("argument --cycles_hz: only with --source_time_scale cycles (the "
                           "timestamps are then clock cycles; in %s they are times already)",
                           et_time_scale_name(o->source_time_scale));
    if (val[OPT_TRACE] && o->source_time_scale == ET_TS_CYCLES && !val[OPT_CYCLES_HZ]) {
        /* before the table is printed; the message trace.c gives */
        fprintf(stderr, "etinspect: error: the source time scale is cycles: give the clock "
                        "frequency (cycles_hz / --cycles_hz) to place events in time\n");
        return 2;
    }
    o->etrecord_method = val[OPT_METHOD]; /* every dump's, several dumps too */
    if (val[OPT_TEST_CASE]) {
        char *end;
        long k = strtol(val[OPT_TEST_CASE], &end, 10);
        if (*end || end == val[OPT_TEST_CASE] || k < 0 || k > INT32_MAX)
            return usage_error("argument --bundled_test_case: expected a test case index >= 0, "
                               "found '%s'", val[OPT_TEST_CASE]);
        o->bundled_test_case = (int32_t)k;
    }
    if (val[OPT_JSON_BUDGET]) {
        char *end;
        unsigned long long k = strtoull(val[OPT_JSON_BUDGET], &end, 10);
        if (*end || val[OPT_JSON_BUDGET][0] < '0' || val[OPT_JSON_BUDGET][0] > '9' || k < 1 ||
            k > ET_JSON_MAX_NODES)
            return usage_error("argument --etrecord_json_budget: expected a number of JSON values "
                               "from 1 to 268435455, found '%s'",
                               val[OPT_JSON_BUDGET]);
        o->etrecord_json_budget = k;
    }
    return 0;
}

/* ---- --delegate_time_scale_converter: a Lua function on the model ---- */

/* The converter the command line hands the core (et_time_converter): the
 * Lua function etinspect.scripts.find_converter found, anchored in the run's
 * Lua state, called on this thread while the model is built. */
typedef struct cli_conv {
    lua_State *L;
    int ref;          /* the function, in the registry */
    const char *spec; /* as typed, for the warning */
    bool warned;      /* one warning per run */
    /* the call in progress */
    const char *name;
    size_t name_len;
    uint64_t ticks;
    double out;
    bool ok;
} cli_conv;

/* Protected: the converter on the call of the cli_conv at 1. */
static int convert_p(lua_State *L)
{
    cli_conv *c = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
    lua_pushlstring(L, c->name, c->name_len);
    lua_pushinteger(L, (lua_Integer)c->ticks);
    lua_call(L, 2, 1);
    if (lua_type(L, -1) != LUA_TNUMBER)
        return luaL_error(L, "returned a %s, expected a number", luaL_typename(L, -1));
    c->out = lua_tonumber(L, -1);
    c->ok = true;
    return 0;
}

/* et_time_converter over a cli_conv: a failure (an error, a value that is
 * not a number) warns once and falls back to the default conversion, as
 * the Inspector's converter does. */
static int cli_convert(void *ud, const char *name, size_t name_len, uint64_t ticks, double *out)
{
    cli_conv *c = ud;
    lua_State *L = c->L;
    int top = lua_gettop(L);
    c->name = name, c->name_len = name_len, c->ticks = ticks, c->ok = false;
    lua_pushcfunction(L, convert_p);
    lua_pushlightuserdata(L, c);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK && !c->warned) {
        const char *m = lua_tostring(L, -1);
        c->warned = true;
        fputs("etinspect: warning: --delegate_time_scale_converter ", stderr);
        et_fput_shown(stderr, c->spec, strlen(c->spec));
        fputs(" failed on delegated event '", stderr);
        et_fput_shown(stderr, name, name_len);
        fputs("': ", stderr);
        et_fput_shown(stderr, m ? m : "?", strlen(m ? m : "?"));
        fputs("; the default conversion is used\n", stderr);
    }
    lua_settop(L, top);
    if (!c->ok)
        return -1;
    *out = c->out;
    return 0;
}

/* Protected: etinspect.scripts.load_plugins{plugin}, then
 * etinspect.scripts.find_converter(spec, target); 1 spec, 2 target, 3 the
 * plugin or nil.  Returns the function. */
static int find_converter_p(lua_State *L)
{
    et_cli_scripts_with_plugins(L, 3);
    lua_getfield(L, -1, "find_converter");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

/* Set o->converter from --delegate_time_scale_converter (and --plugin):
 * the function etinspect.scripts.find_converter names, in the run's Lua state.
 * Returns 0, or the exit status after printing: 2 for an unknown name,
 * 1 for a plugin or file that cannot be read or fails. */
static int setup_converter(const char *const *val, et_inspector_options *o, cli_conv *c)
{
    lua_State *L = et_host_lua();
    if (!L) {
        fprintf(stderr, "etinspect: error: out of memory\n");
        return 1;
    }
    int top = lua_gettop(L);
    lua_pushcfunction(L, find_converter_p);
    lua_pushstring(L, val[OPT_CONVERTER]);
    lua_pushstring(L, et_time_scale_name(o->target_time_scale));
    if (val[OPT_PLUGIN])
        lua_pushstring(L, val[OPT_PLUGIN]);
    else
        lua_pushnil(L);
    int rc = lua_pcall(L, 3, 1, 0);
    if (rc != LUA_OK) {
        int status = et_cli_script_failure(L);
        lua_settop(L, top);
        return status;
    }
    c->L = L;
    c->ref = luaL_ref(L, LUA_REGISTRYINDEX); /* kept until the state closes */
    c->spec = val[OPT_CONVERTER];
    lua_settop(L, top);
    o->converter = cli_convert;
    o->converter_ud = c;
    return 0;
}

/* ---- --delegate_metadata_parser (cli_metadata.h) ---- */

/* Find the parser of --delegate_metadata_parser (and --plugin), refusing it
 * without an output that shows parsed metadata (nothing typed is silently
 * ignored).  Returns 0, or the exit status after printing. */
static int setup_parser(const char *const *val)
{
    if (!val[OPT_JSON] && !val[OPT_HTML] && !val[OPT_TRACE])
        return usage_error("argument --delegate_metadata_parser: only with --json, --html_path or "
                           "--trace_path (%s)",
                           "the outputs that show parsed metadata; the table and the TSV are "
                           "the reference command line's, without it");
    return et_cli_md_find(&cli_md, val[OPT_PARSER], val[OPT_PLUGIN]);
}

/* Hand `insp` to Lua with the parser (it owns it from then on: freed by
 * release_inspector) and run the parser on its delegated events.  Returns
 * 0, or the exit status after printing. */
static int parse_metadata(const char *const *val, et_inspector *insp)
{
    lua_State *L = cli_md.L;
    int top = lua_gettop(L);
    lua_pushcfunction(L, et_lua_adopt_inspector);
    lua_pushlightuserdata(L, insp);
    push_open_options(L, val);
    if (val[OPT_PARSER]) {
        lua_pushstring(L, val[OPT_PARSER]);
        lua_setfield(L, -2, "delegate_metadata_parser_name");
    }
    et_cli_md_push_parser(&cli_md);
    lua_setfield(L, -2, "delegate_metadata_parser");
    bool owned = false;
    lua_pushlightuserdata(L, &owned);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        if (!owned)
            et_inspector_free(insp);
        fprintf(stderr, "etinspect: error: %s\n", lua_tostring(L, -1));
        lua_settop(L, top);
        return 1;
    }
    int rc = et_cli_md_collect(&cli_md, insp); /* pops the Inspector */
    lua_settop(L, top);
    if (rc != 0)
        et_cli_md_free(&cli_md);
    return rc;
}

/* Free `insp`, or close the Inspector userdata that owns it. */
static void release_inspector(et_inspector *insp)
{
    if (cli_md.ud_ref)
        et_cli_md_free(&cli_md);
    else
        et_inspector_free(insp);
}

/* ---- several dumps as one dataset (docs/fleet.md) ---- */

/* The values of the options that may be repeated (--etdump_path,
 * --debug_buffer_path), in order, then the ETDumps and debug buffers named
 * as files (etinspect FILE...), and what they expand to; the files named
 * without an option. */
typedef struct cli_multi {
    const char **dumps, **buffers;
    int n_dumps, n_buffers;
    et_pathlist dump_paths, buffer_paths;
    const char **files;
    int n_files;
    const char *program; /* an ExecuTorch program among the files (progmain.h) */
} cli_multi;


/* Expand the --etdump_path values (files, directories, patterns; dumpset.h)
 * into m->dump_paths and the --debug_buffer_path values (files, patterns)
 * into m->buffer_paths.  Returns 0, or the exit status after printing. */
static int expand_inputs(cli_multi *m, const char *const *val)
{
    et_error err;
    for (int i = 0; i < m->n_dumps; i++) {
        if (strcmp(m->dumps[i], "-") == 0) { /* standard input: one dump, alone */
            if (m->n_dumps > 1)
                return usage_error("argument --etdump_path: '%s' (standard input) is one dump "
                                   "alone; save it to a file to read it with other dumps",
                                   "-");
            if (et_pathlist_add(&m->dump_paths, "-", &err) != 0) {
                fprintf(stderr, "etinspect: error: %s\n", err.msg);
                return 1;
            }
            continue;
        }
        if (et_dumpset_expand(m->dumps[i], &m->dump_paths, &err) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            return exit_code(&err);
        }
    }
    for (int i = 0; i < m->n_buffers; i++) {
        /* a directory is not expanded: a debug buffer has no header to
         * recognise it by */
        struct stat st;
        int rc = stat(m->buffers[i], &st) == 0 && S_ISDIR(st.st_mode)
                     ? et_pathlist_add(&m->buffer_paths, m->buffers[i], &err)
                     : et_dumpset_expand(m->buffers[i], &m->buffer_paths, &err);
        if (rc != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            return exit_code(&err);
        }
    }
    if (m->n_buffers == 0 && val[OPT_DEBUG_BUFFER] &&
        et_pathlist_add(&m->buffer_paths, val[OPT_DEBUG_BUFFER], &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* Append the rows of `f` to `all` (made on the first call: "dump", then
 * f's columns; columns of later frames that `all` lacks are refused, as
 * every dump's frame has the same columns), each with `name` first. */
static int append_frame(et_frame **all, const et_frame *f, const char *name)
{
    size_t nc = et_frame_ncols(f);
    if (!*all) {
        const char **names = malloc((nc + 1) * sizeof *names);
        if (!names)
            return -1;
        names[0] = "dump";
        for (size_t c = 0; c < nc; c++)
            names[c + 1] = et_frame_colname(f, c);
        *all = et_frame_new(nc + 1, names);
        free(names);
        if (!*all)
            return -1;
    }
    /* the column of each of f's columns in `all` */
    size_t *to = malloc((nc ? nc : 1) * sizeof *to);
    if (!to)
        return -1;
    for (size_t c = 0; c < nc; c++) {
        to[c] = 0;
        for (size_t a = 1; a < et_frame_ncols(*all); a++)
            if (strcmp(et_frame_colname(*all, a), et_frame_colname(f, c)) == 0)
                to[c] = a;
        if (to[c] == 0) { /* cannot happen: one report, one set of columns */
            free(to);
            errno = EINVAL;
            return -1;
        }
    }
    int rc = 0;
    for (size_t r = 0; r < et_frame_nrows(f) && rc == 0; r++) {
        long row = et_frame_add_row(*all);
        if (row < 0 || et_frame_set_text(*all, (size_t)row, 0, name, strlen(name)) != 0) {
            rc = -1;
            break;
        }
        for (size_t c = 0; c < nc && rc == 0; c++) {
            size_t at = to[c], len;
            const char *t;
            switch (et_frame_kind(f, r, c)) {
            case ET_CELL_TEXT:
                t = et_frame_get_text(f, r, c, &len);
                rc = et_frame_set_text(*all, (size_t)row, at, t, len);
                break;
            case ET_CELL_INT:
                et_frame_set_int(*all, (size_t)row, at, et_frame_get_int(f, r, c));
                break;
            case ET_CELL_FLOAT:
                et_frame_set_float(*all, (size_t)row, at, et_frame_get_float(f, r, c));
                break;
            case ET_CELL_BOOL:
                et_frame_set_bool(*all, (size_t)row, at, et_frame_get_bool(f, r, c));
                break;
            case ET_CELL_NONE:
                break;
            }
        }
    }
    free(to);
    return rc;
}

/* A JSON string, escaped as the --json document's strings are. */
static void put_json_str(FILE *out, const char *s)
{
    et_strbuf sb = {0};
    et_sb_add_json_str(&sb, s, strlen(s));
    if (!sb.failed)
        fwrite(sb.p, 1, sb.n, out);
    et_sb_free(&sb);
}

/* Several dumps (two or more paths after expansion): one table, TSV,
 * JSON document and SQLite export over all of them, each row with the
 * dump's name first (et_dumpset_names).  The dumps are read one at a
 * time (only their table rows are kept); the outputs are written after
 * the last one, or not at all when one fails. */
static int many_main(const char *const *val, const bool *flag, cli_multi *m,
                     et_inspector_options *o)
{
    int crc = check_options(M_MANY, val, flag);
    if (crc == 0)
        crc = check_kinds(val);
    if (crc == 0)
        crc = check_kind(OPT_ETDUMP, ET_INPUT_ETDUMP, (const char *const *)m->dump_paths.v,
                         m->dump_paths.n);
    if (crc != 0)
        return crc;
    size_t n = m->dump_paths.n, nb = m->buffer_paths.n;
    if (nb != 0 && nb != n) {
        fprintf(stderr, "%setinspect: error: argument --debug_buffer_path: %zu debug buffers "
                        "for %zu dumps (give one per dump, in the order of the dumps)\n",
                usage_line, nb, n);
        return 2;
    }
    et_error err;
    char **names;
    if (et_dumpset_names((const char *const *)m->dump_paths.v, n, &names, &err) != 0) {
        fprintf(stderr, "%setinspect: error: %s\n", err.kind == ET_ERR_USAGE ? usage_line : "",
                err.msg);
        return exit_code(&err);
    }
    /* every input, for the outputs to refuse */
    const char **inputs = calloc(n + nb + 2, sizeof *inputs);
    size_t n_inputs = 0;
    et_etrecord *rec = NULL;
    et_frame *all = NULL;
    et_outfile json;
    bool json_open = false;
    et_sqlite *db = NULL;
    et_parquet *pq = NULL;
    int rc = 0;
    if (!inputs) {
        fprintf(stderr, "etinspect: error: out of memory\n");
        rc = 1;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        inputs[n_inputs++] = m->dump_paths.v[i];
    for (size_t i = 0; i < nb; i++)
        inputs[n_inputs++] = m->buffer_paths.v[i];
    if (val[OPT_ETRECORD])
        inputs[n_inputs++] = val[OPT_ETRECORD];
    if ((rc = check_outputs(val, inputs)) != 0)
        goto out;
    /* the ETRecord, read once for all dumps */
    if (val[OPT_ETRECORD]) {
        et_etrecord_options eo;
        et_etrecord_options_init(&eo);
        eo.path = val[OPT_ETRECORD];
        eo.json_budget = o->etrecord_json_budget;
        if (!(rec = et_etrecord_open(&eo, &err))) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            rc = exit_code(&err);
            goto out;
        }
        o->etrecord = rec;
    }
    if (val[OPT_JSON]) {
        if (et_outfile_open(&json, val[OPT_JSON], inputs, &err) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            rc = exit_code(&err);
            goto out;
        }
        json_open = true;
        fprintf(json.fp, "{\"format\": \"etinspect-json-dumps\", \"format_version\": 1, "
                         "\"num_dumps\": %zu, \"dumps\": [\n", n);
    }
    if (val[OPT_SQLITE] && et_sqlite_begin(&db, val[OPT_SQLITE], inputs, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        rc = exit_code(&err);
        goto out;
    }
    if (val[OPT_PARQUET] && et_parquet_begin(&pq, val[OPT_PARQUET], inputs, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        rc = exit_code(&err);
        goto out;
    }
    /* the Parquet files of a dump are written beside the next one's build,
     * which takes the other threads */
    if (pq)
        o->threads = et_parquet_build_threads();
    for (size_t i = 0; i < n && rc == 0; i++) {
        o->etdump_path = m->dump_paths.v[i];
        o->debug_buffer_path = nb ? m->buffer_paths.v[i] : NULL;
        et_inspector *insp = open_inspector(o, &rc);
        if (!insp)
            break;
        if (nb)
            warn_unused_buffer(insp, m->buffer_paths.v[i]);
        if (!flag[OPT_QUIET] || val[OPT_TSV]) {
            et_frame *f = et_report_frame(insp, true, true, &err);
            if (!f || append_frame(&all, f, names[i]) != 0) {
                fprintf(stderr, "etinspect: error: %s\n", f ? "out of memory" : err.msg);
                rc = 1;
            }
            et_frame_free(f);
        }
        if (rc == 0 && json_open) {
            fputs(i ? ",\n{\"dump\": " : "{\"dump\": ", json.fp);
            put_json_str(json.fp, names[i]);
            fputs(", \"document\": ", json.fp);
            if (et_report_write_json(insp, json.fp) != 0) {
                json_open = false;
                et_outfile_fail(&json, &err); /* "PATH: write failed: REASON" */
                fprintf(stderr, "etinspect: error: %s\n", err.msg);
                rc = 1;
            }
            if (json_open)
                fputs("}", json.fp);
        }
        et_sqlite_dump_options so = {.preferred = names[i]};
        if (rc == 0 && db && et_sqlite_add(db, insp, &so, &err) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            rc = exit_code(&err);
        }
        if (rc == 0 && pq) {
            /* written beside the next dump's model (the last one's error
             * comes from the commit below) */
            et_inspector *given = insp;
            insp = NULL;
            if (et_parquet_give(pq, given, names[i], &err) != 0) {
                fprintf(stderr, "etinspect: error: %s\n", err.msg);
                rc = exit_code(&err);
            }
        }
        et_inspector_free(insp);
    }
    if (rc == 0 && !flag[OPT_QUIET] && et_frame_write_grid(all, stdout) != 0) {
        rc = et_stdout_guard_report();
    }
    if (rc == 0 && val[OPT_TSV])
        rc = write_output(val[OPT_TSV], inputs, write_tsv, NULL, all);
    if (rc == 0 && json_open) {
        fputs("\n]}\n", json.fp);
        json_open = false;
        if (et_outfile_commit(&json, &err) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            rc = 1;
        }
    }
    if (pq && et_parquet_commit(pq, &err) != 0 && rc == 0) { /* after a failure too */
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        rc = exit_code(&err);
    }
    if (rc == 0 && db) {
        et_sqlite *s = db;
        db = NULL;
        if (et_sqlite_commit(s, &err) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            rc = exit_code(&err);
        }
    }
    if (rc == 0 && fflush(stdout) != 0) {
        rc = et_stdout_guard_report();
    }
out:
    if (json_open)
        et_outfile_abort(&json);
    et_sqlite_abort(db);
    et_parquet_end(pq);
    et_frame_free(all);
    et_etrecord_free(rec);
    free(inputs);
    et_dumpset_names_free(names, n);
    return rc;
}

/* ---- inputs given by name (etinspect FILE...) ---- */

/* The files named without an option take the options their content calls
 * for (et_inputs_assign): ETDumps (and directories of them) are added to
 * the --etdump_path values and debug buffers to the --debug_buffer_path
 * values, after those given by option, so that several dumps are one
 * dataset as with repeated options.  Returns 0, or the exit status after
 * printing the error. */
static int assign_files(cli_multi *m, const char **val)
{
    /* "-": a dump read from standard input (the ETDump of `adb exec-out
     * cat ... | etinspect -`), beside the --etdump_path values */
    int kept = 0;
    for (int i = 0; i < m->n_files; i++) {
        if (strcmp(m->files[i], "-") != 0) {
            m->files[kept++] = m->files[i];
            continue;
        }
        m->dumps[m->n_dumps++] = "-";
        if (!val[OPT_ETDUMP])
            val[OPT_ETDUMP] = "-";
    }
    m->n_files = kept;
    /* m->dumps and m->buffers have room for every argument */
    et_inputs in = {.etdump = val[OPT_ETDUMP],
                    .profile_results = val[OPT_PROFILE],
                    .etrecord = val[OPT_ETRECORD],
                    .bundled_program = val[OPT_BUNDLED],
                    .debug_buffer = val[OPT_DEBUG_BUFFER],
                    .etdumps = m->dumps + m->n_dumps,
                    .debug_buffers = m->buffers + m->n_buffers};
    char msg[1024];
    int rc = et_inputs_assign(m->files, m->n_files, &in, msg, sizeof msg);
    if (rc != 0) {
        fprintf(stderr, "%setinspect: error: %s\n", rc == 2 ? usage_line : "", msg);
        return rc;
    }
    m->n_dumps += in.n_etdumps;
    m->n_buffers += in.n_debug_buffers;
    val[OPT_ETDUMP] = in.etdump;
    val[OPT_PROFILE] = in.profile_results;
    val[OPT_ETRECORD] = in.etrecord;
    val[OPT_BUNDLED] = in.bundled_program;
    val[OPT_DEBUG_BUFFER] = in.debug_buffer;
    m->program = in.program;
    return 0;
}

/* A program (.pte) without a dump, or a BundledProgram alone: its summary
 * (progmain.h); --json and --quiet are the only options taken. */
static int program_mode(const char *path, bool bundled, const char *const *val,
                        const bool *flag)
{
    for (int o = 0; o < OPT_COUNT; o++) {
        if ((val[o] || flag[o]) && o != OPT_JSON && o != OPT_QUIET &&
            !(bundled ? o == OPT_BUNDLED : o == OPT_PROGRAM)) {
            fprintf(stderr, "%setinspect: error: argument --%s: not allowed with a program "
                            "alone (its summary takes --json and --quiet)\n",
                    usage_line, options[o].name);
            return 2;
        }
    }
    const char *inputs[2] = {path, NULL};
    int rc = check_outputs(val, inputs);
    if (rc != 0)
        return rc;
    return et_program_main(path, bundled, val[OPT_JSON], flag[OPT_QUIET]);
}

/* An ETRecord without a dump: the bundled `etrecord` script summarises it
 * (the Lua host runs it: `next` gets its arguments, ET_CLI_LUA is
 * returned). */
static int etrecord_summary(const char *const *val, const bool *flag, et_cli_next *next)
{
    int crc = check_options(M_RECORD, val, flag);
    if (crc == 0)
        crc = check_kinds(val);
    et_inspector_options o; /* --etrecord_json_budget checked as for a dump */
    if (crc == 0)
        crc = inspector_options(val, &o);
    if (crc != 0)
        return crc;
    char *args[] = {"etinspect", "etrecord", (char *)val[OPT_ETRECORD],
                    "--etrecord_json_budget", (char *)val[OPT_JSON_BUDGET], NULL};
    next->argc = val[OPT_JSON_BUDGET] ? 5 : 3;
    for (int i = 0; i < next->argc; i++)
        next->argv[i] = args[i];
    next->argv[next->argc] = NULL;
    return ET_CLI_LUA;
}

static int cli_main(int argc, char **argv, cli_multi *m, et_cli_next *next);

int et_cli_main(int argc, char **argv, et_cli_next *next)
{
    cli_multi m = {0};
    m.dumps = malloc((size_t)argc * sizeof *m.dumps);
    m.buffers = malloc((size_t)argc * sizeof *m.buffers);
    m.files = malloc((size_t)argc * sizeof *m.files);
    int rc;
    if (!m.dumps || !m.buffers || !m.files) {
        fprintf(stderr, "etinspect: error: out of memory\n");
        rc = 1;
    } else {
        rc = cli_main(argc, argv, &m, next);
    }
    free(m.dumps);
    free(m.buffers);
    free(m.files);
    et_pathlist_free(&m.dump_paths);
    et_pathlist_free(&m.buffer_paths);
    return rc;
}

static int cli_main(int argc, char **argv, cli_multi *m, et_cli_next *next)
{
    const char *val[OPT_COUNT] = {0};
    bool flag[OPT_COUNT] = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int opt;
        const char *value = NULL;
        if (strcmp(a, "-h") == 0) {
            opt = OPT_HELP;
        } else if (strcmp(a, "-q") == 0) {
            opt = OPT_QUIET;
        } else if (a[0] == '-' && a[1] == '-' && a[2]) {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            char cands[512];
            opt = match_option(a + 2, len, cands, sizeof cands);
            if (opt == -2) {
                fprintf(stderr, "%setinspect: error: ambiguous option: %.*s could match %s\n",
                        usage_line, (int)(len + 2), a, cands);
                return 2;
            }
            if (opt < 0)
                return usage_error("unrecognized arguments: %s", a);
            if (eq)
                value = eq + 1;
        } else if ((a[0] != '-' && a[0]) || strcmp(a, "-") == 0) { /* "-": standard input */
            m->files[m->n_files++] = a;
            continue;
        } else {
            return usage_error("unrecognized arguments: %s", a);
        }
        if (options[opt].metavar) {
            if (!value) {
                if (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] == '-'))
                    return usage_error("argument --%s: expected one argument",
                                       options[opt].name);
                value = argv[++i];
            }
            if (!*value && is_path_option(opt))
                return usage_error("argument --%s: the path is empty", options[opt].name);
            if (val[opt] && is_output(opt)) {
                fprintf(stderr, "%setinspect: error: argument --%s: given twice ('%s' and '%s'); "
                                "each output is written once, to one file\n",
                        usage_line, options[opt].name, val[opt], value);
                return 2;
            }
            val[opt] = value;
            if (opt == OPT_ETDUMP)
                m->dumps[m->n_dumps++] = value;
            else if (opt == OPT_DEBUG_BUFFER)
                m->buffers[m->n_buffers++] = value;
        } else {
            if (value)
                return usage_error("argument --%s: ignored explicit argument", options[opt].name);
            flag[opt] = true;
        }
    }
    if (flag[OPT_HELP]) {
        print_help(stdout);
        return 0;
    }
    if (flag[OPT_VERSION]) {
        printf("etinspect %s\n", ETINSPECT_VERSION);
        return 0;
    }
    if (val[OPT_MAX_BROADCAST]) { /* docs/user-guide.md "Limits" */
        char *end;
        unsigned long long n = strtoull(val[OPT_MAX_BROADCAST], &end, 10);
        if (*end || end == val[OPT_MAX_BROADCAST] || val[OPT_MAX_BROADCAST][0] == '-' || n == 0)
            return usage_error("argument --max_broadcast_elements: expected a number of "
                               "elements >= 1, found '%s'", val[OPT_MAX_BROADCAST]);
        et_tensor_set_max_broadcast(n);
    }
    int clash = check_clashes(val);
    if (clash != 0)
        return clash;
    if (m->n_files > 0) {
        int rc = assign_files(m, val);
        if (rc != 0)
            return rc;
    }
    if (m->program && val[OPT_PROGRAM]) {
        fprintf(stderr, "%setinspect: error: two programs: %s and %s\n", usage_line,
                val[OPT_PROGRAM], m->program);
        return 2;
    }
    if (m->program) /* a program named as a file is --program_path */
        val[OPT_PROGRAM] = m->program;
    if (val[OPT_PROGRAM] && !val[OPT_ETDUMP] && !val[OPT_PROFILE] && !val[OPT_ETRECORD] &&
        !val[OPT_BUNDLED])
        return program_mode(val[OPT_PROGRAM], false, val, flag);
    if (val[OPT_BUNDLED] && !val[OPT_ETDUMP] && !val[OPT_PROFILE] && !val[OPT_ETRECORD])
        return program_mode(val[OPT_BUNDLED], true, val, flag);
    if (val[OPT_ETRECORD] && !val[OPT_ETDUMP] && !val[OPT_PROFILE])
        return etrecord_summary(val, flag, next);
    if (val[OPT_PROFILE])
        return legacy_main(val, flag);
    if (!val[OPT_ETDUMP])
        return usage_error("the following arguments are required: %s", "--etdump_path");
    int crc = check_options(M_ETDUMP, val, flag);
    if (crc != 0)
        return crc;
    et_error err;
    et_inspector_options o;
    int orc = inspector_options(val, &o);
    if (orc != 0)
        return orc;
    cli_conv conv = {0};
    if (val[OPT_CONVERTER] && (orc = setup_converter(val, &o, &conv)) != 0)
        return orc;
    if (val[OPT_PARSER] && (orc = setup_parser(val)) != 0)
        return orc;
    if (m->n_dumps > 0) {
        orc = expand_inputs(m, val);
        if (orc != 0)
            return orc;
        if (m->dump_paths.n > 1)
            return many_main(val, flag, m, &o);
        val[OPT_ETDUMP] = m->dump_paths.v[0];
        if (m->buffer_paths.n > 1)
            return usage_error("argument --debug_buffer_path: %s debug buffers for one dump",
                               "several");
        if (m->buffer_paths.n == 1)
            val[OPT_DEBUG_BUFFER] = m->buffer_paths.v[0];
    }
    o.etdump_path = val[OPT_ETDUMP];
    o.debug_buffer_path = val[OPT_DEBUG_BUFFER];
    o.bundled_program_path = val[OPT_BUNDLED];
    o.etrecord_path = val[OPT_ETRECORD];
    o.program_path = val[OPT_PROGRAM];
    bool from_stdin = strcmp(val[OPT_ETDUMP], "-") == 0;
    int krc = check_kind(OPT_ETDUMP, ET_INPUT_ETDUMP, &val[OPT_ETDUMP], 1);
    if (krc == 0)
        krc = check_kinds(val);
    if (krc != 0)
        return krc;
    const char *inputs[6] = {from_stdin ? NULL : val[OPT_ETDUMP], NULL, NULL, NULL, NULL, NULL};
    size_t n_inputs = from_stdin ? 0 : 1;
    if (val[OPT_PROGRAM])
        inputs[n_inputs++] = val[OPT_PROGRAM];
    if (val[OPT_BUNDLED])
        inputs[n_inputs++] = val[OPT_BUNDLED];
    if (val[OPT_DEBUG_BUFFER])
        inputs[n_inputs++] = val[OPT_DEBUG_BUFFER];
    if (val[OPT_ETRECORD])
        inputs[n_inputs++] = val[OPT_ETRECORD];
    int rc = check_outputs(val, inputs);
    if (rc == 0 && from_stdin)
        rc = read_stdin_dump(&o);
    if (rc != 0)
        return rc;
    int open_rc;
    et_inspector *insp = open_inspector(&o, &open_rc);
    if (!insp)
        return open_rc;
    if (val[OPT_DEBUG_BUFFER])
        warn_unused_buffer(insp, val[OPT_DEBUG_BUFFER]);
    if (val[OPT_PARSER] && (rc = parse_metadata(val, insp)) != 0)
        return rc;
    et_frame *f = NULL;
    if (!flag[OPT_QUIET]) { /* --tsv_path alone streams (write_tsv) */
        f = et_report_frame(insp, true, true, &err);
        if (!f) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            release_inspector(insp);
            return 1;
        }
    }
    if (!flag[OPT_QUIET] && et_frame_write_grid(f, stdout) != 0) {
        rc = et_stdout_guard_report();
    }
    if (rc == 0)
        rc = write_files(val, inputs, insp, f, write_json);
    if (rc == 0 && flag[OPT_MEMORY])
        rc = print_memory(insp);
    if (rc == 0 && val[OPT_TRACE])
        rc = write_trace(val, flag, inputs, insp);
    if (rc == 0 && val[OPT_MODEL_EXPLORER] &&
        et_mx_write_dir(insp, NULL, val[OPT_MODEL_EXPLORER], inputs, &err) != 0) {
        fprintf(stderr, "etinspect: error: %s\n", err.msg);
        rc = exit_code(&err);
    }
    if (rc == 0 && val[OPT_SQLITE]) {
        et_sqlite_dump_options so = {.name = val[OPT_SQLITE_DUMP],
                                     .replace = flag[OPT_SQLITE_REPLACE]};
        if (et_sqlite_export(insp, val[OPT_SQLITE], &so, &err) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            rc = exit_code(&err);
        }
    }
    if (rc == 0 && val[OPT_PARQUET]) {
        const char *base = strrchr(val[OPT_ETDUMP], '/');
        if (et_parquet_export(insp, val[OPT_PARQUET], base && base[1] ? base + 1 : val[OPT_ETDUMP],
                              &err) != 0) {
            fprintf(stderr, "etinspect: error: %s\n", err.msg);
            rc = exit_code(&err);
        }
    }
    et_frame_free(f);
    if (rc == 0 && (val[OPT_HTML] || flag[OPT_COMPARE]))
        rc = lua_outputs(val, flag, inputs, insp);
    else
        release_inspector(insp);
    et_cli_md_free(&cli_md);
    return rc;
}
