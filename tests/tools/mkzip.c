/*
 * mkzip.c - write a ZIP archive from the command line (libzip), so that
 * shell and Lua tests can build ETRecords.
 *
 * Usage: mkzip [-d|-s] OUT ENTRY... ([-d|-s] may appear between entries)
 *
 *   ENTRY is NAME=FILE (the entry holds FILE's bytes) or NAME=@TEXT (the
 *   entry holds TEXT itself; NAME=@ is an empty entry).  The name is split
 *   at the first '='.  Entries are written in the order given.
 *   -d  deflate the entries that follow;  -s  store them (the default,
 *       as Python's zipfile writes ETRecords).
 *
 * Every entry gets the same modification time (2023-10-23 13:44:42 UTC),
 * so the output depends only on the arguments.  OUT is replaced.
 *
 * Example (a minimal 2023-layout ETRecord):
 *   mkzip rec.bin ETRECORD_V0=@ edge_dialect_exported_program=ep.json \
 *       edge_dialect_exported_program_state_dict=@ \
 *       'debug_handle_map=@{"forward": {"0": 1}}' 'delegate_map=@{}'
 *
 * Exit status: 0 written, 1 an input or the output failed, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zip.h>

#define FIXED_MTIME ((time_t)1698068682) /* 2023-10-23 13:44:42 UTC */

static int usage(void)
{
    fputs("usage: mkzip [-d|-s] OUT NAME=FILE|NAME=@TEXT... ([-d|-s] between entries)\n", stderr);
    return 2;
}

/* Build OUT from the arguments (see the top of the file). */
int main(int argc, char **argv)
{
    const char *out = NULL;
    int deflate = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-d") == 0 || strcmp(argv[i], "-s") == 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1])
            return usage();
        if (!out)
            out = argv[i];
        else if (!strchr(argv[i], '='))
            return usage();
    }
    if (!out)
        return usage();
    /* libzip converts the time to MS-DOS local time */
    setenv("TZ", "UTC0", 1);
    tzset();

    int code = 0;
    zip_t *z = zip_open(out, ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, code);
        fprintf(stderr, "mkzip: %s: %s\n", out, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return 1;
    }
    int seen_out = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-d") == 0) {
            deflate = 1;
            continue;
        }
        if (strcmp(argv[i], "-s") == 0) {
            deflate = 0;
            continue;
        }
        if (!seen_out) {
            seen_out = 1;
            continue;
        }
        char *eq = strchr(argv[i], '=');
        char name[4096];
        size_t ln = (size_t)(eq - argv[i]);
        if (ln >= sizeof name) {
            fprintf(stderr, "mkzip: entry name too long: %.40s...\n", argv[i]);
            zip_discard(z);
            return 2;
        }
        memcpy(name, argv[i], ln);
        name[ln] = '\0';
        const char *what = eq + 1;
        zip_source_t *src;
        if (what[0] == '@')
            src = zip_source_buffer(z, what + 1, strlen(what + 1), 0);
        else
            src = zip_source_file(z, what, 0, -1); /* -1: to the end */
        zip_int64_t idx = src ? zip_file_add(z, name, src, ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0) {
            fprintf(stderr, "mkzip: %s: %s\n", name, zip_strerror(z));
            if (src)
                zip_source_free(src);
            zip_discard(z);
            return 1;
        }
        if (zip_set_file_compression(z, (zip_uint64_t)idx, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                     deflate ? 9 : 0) != 0 ||
            zip_file_set_mtime(z, (zip_uint64_t)idx, FIXED_MTIME, 0) != 0) {
            fprintf(stderr, "mkzip: %s: %s\n", name, zip_strerror(z));
            zip_discard(z);
            return 1;
        }
    }
    if (zip_close(z) != 0) {
        fprintf(stderr, "mkzip: %s: %s\n", out, zip_strerror(z));
        zip_discard(z);
        return 1;
    }
    return 0;
}
