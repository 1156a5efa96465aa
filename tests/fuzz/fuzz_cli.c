/*
 * fuzz_cli.c - libFuzzer target: argument vectors through the command line
 * (et_cli_main, src/host/cli.c: its option parser, then whatever the
 * options ask for - tables, TSV, JSON, trace, SQLite, HTML and
 * --compare_results through the embedded Lua, memory, legacy dumps; an
 * ETRecord alone handed to the Lua host's bundled `etrecord` script as
 * main.c hands it).  The Lua host's own arguments (-e, scripts) are not
 * fuzzed: they run whatever code they are given.
 *
 * Input: the arguments, separated by NUL bytes (at most 24; "etinspect" is
 * argv[0]).  The run happens in a scratch directory (the working directory
 * during the run only) holding fixtures with
 * one-letter names: a (sample.etdp), b (tensors.etdp), c (tensors.bin, its
 * debug buffer), d (distinct.bpte), e (sample.etrecord), f (a legacy
 * dump), g (stride0.etdp), h (a 64-byte debug buffer).  To keep every path
 * inside it, '/' in an argument becomes '_' (except the arguments
 * "/dev/null" and "/dev/full"); arguments starting with "--ma" (raising
 * the broadcast budget, --max_broadcast_elements, is a user's request to
 * do more work, not a finding) are dropped.  Fixtures are restored and
 * every other file removed after each run.  Standard input is /dev/null
 * (an argument "-" reads a dump from it).  Standard output and error are
 * closed by libFuzzer (fuzz_cli.options: close_fd_mask=3).  Each run has
 * its own Lua state, made when the run needs one and closed after it
 * (et_host_close, host.h).  The Lua lines the run reaches count as
 * coverage (lua_cov.h, through luaL_newstate).
 * Invariants, checked with __builtin_trap(): the exit status is 0, 1 or 2;
 * a fixture given as an input with an option's full name
 * (--etdump_path, --debug_buffer_path, --bundled_program_path,
 * --etrecord_path, --profile_results_path) is never modified; no
 * temporary file is left behind; no input stays registered.
 *
 * Seeds: tests/fuzz/seeds/fuzz_cli/ (fuzz_cli.seeds); make fuzz.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/cli.h"
#include "host/host.h"
#include "host/lua_host.h"
#include "files/mapfile.h"
#include "format/tensor.h"
#include "lua_cov.h"

/* The libFuzzer entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A run makes a Lua state (--html_path, --compare_results, an ETRecord):
 * linked with -Wl,--wrap=luaL_newstate (Makefile, FUZZ_LDFLAGS_fuzz_cli),
 * every state it makes counts its Lua lines as coverage (lua_cov.h). */
lua_State *__real_luaL_newstate(void);
lua_State *__wrap_luaL_newstate(void);

lua_State *__wrap_luaL_newstate(void)
{
    lua_State *L = __real_luaL_newstate();
    if (L)
        et_fuzz_lua_coverage(L);
    return L;
}

#define MAX_ARGS 24

typedef struct fixture {
    const char *name, *source; /* source: relative to ET_BUILD or the checkout */
    bool in_build;
    char *bytes;
    size_t len;
} fixture;

static fixture fx[] = {
    {"a", "fixtures/sample.etdp", true, NULL, 0},
    {"b", "fixtures/tensors.etdp", true, NULL, 0},
    {"c", "tests/fixtures/tensors.bin", false, NULL, 0},
    {"d", "tests/bundled/distinct.bpte", false, NULL, 0},
    {"e", "fixtures/sample.etrecord", true, NULL, 0},
    {"f", "tests/legacy/main.bin", false, NULL, 0},
    {"g", "fixtures/stride0.etdp", true, NULL, 0},
    {"h", NULL, false, NULL, 0},
};
#define N_FX (sizeof fx / sizeof *fx)

static char scratch[] = "/tmp/fuzz_cli-XXXXXX";
static int ready, home = -1; /* home: the directory libFuzzer works in */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    size_t cap = 0, n = 0, k;
    char chunk[65536];
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + k > cap) {
            cap = (n + k) * 2;
            char *nb = realloc(b, cap);
            if (!nb) {
                free(b);
                fclose(f);
                return NULL;
            }
            b = nb;
        }
        memcpy(b + n, chunk, k);
        n += k;
    }
    fclose(f);
    *len = n;
    return b ? b : calloc(1, 1);
}

static int put(const char *name, const char *bytes, size_t len)
{
    FILE *f = fopen(name, "wb");
    if (!f)
        return -1;
    if (len)
        fwrite(bytes, 1, len, f);
    return fclose(f);
}

static int reset(char *const *argv, int argc);

/* At exit: the scratch directory goes. */
static void cleanup(void)
{
    if (chdir(scratch) != 0)
        return;
    reset(NULL, 0);
    for (size_t i = 0; i < N_FX; i++)
        unlink(fx[i].name);
    if (fchdir(home) == 0)
        rmdir(scratch);
}

static int init(void)
{
    const char *build = getenv("ET_BUILD");
    char path[4096];
    for (size_t i = 0; i < N_FX; i++) {
        if (!fx[i].source) { /* h: float 1.5 then zeros */
            fx[i].len = 64;
            fx[i].bytes = calloc(1, 64);
            if (!fx[i].bytes)
                return -1;
            memcpy(fx[i].bytes, "\x00\x00\xc0\x3f", 4);
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", fx[i].in_build ? (build ? build : "build") : ".",
                 fx[i].source);
        if (!(fx[i].bytes = slurp(path, &fx[i].len))) {
            fprintf(stderr, "fuzz_cli: %s: missing (run make first)\n", path);
            return -1;
        }
    }
    if ((home = open(".", O_RDONLY | O_DIRECTORY)) < 0 || !mkdtemp(scratch))
        return -1;
    atexit(cleanup);
    return 0;
}

/* Whether `name` is an argument, or the value of an "--opt=VALUE" one. */
static bool named(const char *name, size_t len, char *const *argv, int argc)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = a[0] == '-' ? strchr(a, '=') : NULL;
        if (eq)
            a = eq + 1;
        if (strlen(a) == len && !strncmp(a, name, len))
            return true;
    }
    return false;
}

/* Restore the fixtures; remove everything else.  Returns the number of
 * leftover temporary files: "DEST.XXXXXX" for an argument DEST, not itself
 * an argument (argv NULL: none counted). */
static int reset(char *const *argv, int argc)
{
    int temps = 0;
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        bool keep = false;
        for (size_t i = 0; i < N_FX; i++)
            keep = keep || !strcmp(n, fx[i].name);
        if (keep)
            continue;
        size_t len = strlen(n);
        if (argv && len > 7 && n[len - 7] == '.' && named(n, len - 7, argv, argc) &&
            !named(n, len, argv, argc)) {
            fprintf(stderr, "fuzz_cli: %s was left behind\n", n);
            temps++;
        }
        if (unlink(n) != 0)
            rmdir(n);
    }
    if (d)
        closedir(d);
    for (size_t i = 0; i < N_FX; i++)
        put(fx[i].name, fx[i].bytes, fx[i].len);
    return temps;
}

static bool same_as_fixture(const fixture *f)
{
    size_t n;
    char *b = slurp(f->name, &n);
    bool same = b && n == f->len && memcmp(b, f->bytes, n) == 0;
    free(b);
    return same;
}

/* Whether argument `a` names an input option in full ("--etdump_path" or
 * "--etdump_path=VALUE"); *value: the value after '=', or NULL. */
static bool input_option(const char *a, const char **value)
{
    static const char *const names[] = {"--etdump_path", "--debug_buffer_path",
                                        "--bundled_program_path", "--etrecord_path",
                                        "--profile_results_path"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t n = strlen(names[i]);
        if (!strncmp(a, names[i], n) && (a[n] == 0 || a[n] == '=')) {
            *value = a[n] == '=' ? a + n + 1 : NULL;
            return true;
        }
    }
    return false;
}

/* The command line, then what it hands back to the Lua host, as main.c
 * runs them (its `run` for a bundled script named first); the run's Lua
 * state closed after.  Returns the exit status. */
static int run_cli(int argc, char **argv)
{
    et_cli_next next;
    int rc = et_cli_main(argc, argv, &next);
    if (rc == ET_CLI_LUA) {
        const char *how = NULL;
        rc = et_lua_host_open();
        if (rc == 0)
            rc = et_lua_host_resolve(next.argv[1], &how);
        if (rc == 0)
            rc = et_lua_host_fit_terminal();
        if (rc == 0 && how)
            rc = et_lua_host_set_arg(next.argc, next.argv, 1);
        if (rc == 0 && how)
            rc = et_lua_host_run_script(next.argc, next.argv, 1, how);
    }
    et_host_close();
    return rc;
}

/* One input (see the top of the file).  Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready) {
        if (init() != 0)
            abort();
        /* "-" reads a dump from standard input: an empty one, never the
         * terminal libFuzzer may have been started from */
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0)
            abort();
        close(null_fd);
        ready = 1;
    }
    /* in the scratch directory for the run only: libFuzzer's own paths
     * (a relative corpus) stay valid between runs */
    if (chdir(scratch) != 0)
        abort();
    if (ready == 1) {
        reset(NULL, 0);
        ready = 2;
    }
    /* split at NUL bytes; sanitize */
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = 0;
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "etinspect";
    for (char *p = copy; p <= copy + size && argc <= MAX_ARGS; p += strlen(p) + 1) {
        if (!strncmp(p, "--ma", 4))
            continue;
        if (strcmp(p, "/dev/null") && strcmp(p, "/dev/full"))
            for (char *q = p; *q; q++)
                if (*q == '/')
                    *q = '_';
        argv[argc++] = p;
    }
    argv[argc] = NULL;
    bool input[N_FX] = {false};
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (!input_option(argv[i], &v))
            continue;
        if (!v)
            v = i + 1 < argc ? argv[i + 1] : "";
        for (size_t k = 0; k < N_FX; k++)
            input[k] = input[k] || !strcmp(v, fx[k].name);
    }

    size_t before = et_inputs_in_use();
    int rc = run_cli(argc, argv);
    if (rc < 0 || rc > 2)
        __builtin_trap();
    for (size_t k = 0; k < N_FX; k++)
        if (input[k] && !same_as_fixture(&fx[k])) {
            fprintf(stderr, "fuzz_cli: the input %s was modified\n", fx[k].name);
            __builtin_trap();
        }
    if (et_inputs_in_use() != before)
        __builtin_trap();
    et_tensor_set_max_broadcast(0);
    if (reset(argv, argc) != 0)
        __builtin_trap();
    if (fchdir(home) != 0)
        abort();
    free(copy);
    return 0;
}
