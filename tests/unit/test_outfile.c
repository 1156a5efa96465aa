/*
 * test_outfile.c - the registry of inputs in use and the output guard
 * (mapfile.h, outfile.h), checking before mapping, temporary files removed
 * on a signal, write errors that name the path and the reason (issue 14).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "files/mapfile.h"
#include "format/npy.h"
#include "files/outfile.h"
#include "tap.h"

static char dir[] = "/tmp/et-outfile-XXXXXX";

static char *path_in(const char *name)
{
    static char buf[8][256];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *get(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* Entries of `dir` whose names start with `prefix`. */
static int count_prefix(const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* Write `text` to `dest` through et_outfile; returns its status. */
static int write_out(const char *dest, const char *text, et_error *err)
{
    et_outfile of;
    if (et_outfile_open(&of, dest, NULL, err) != 0)
        return -1;
    if (fputs(text, of.fp) < 0)
        return et_outfile_fail(&of, err);
    return et_outfile_commit(&of, err);
}

static void test_guard(void)
{
    const char *in = path_in("in.etdp"), *out = path_in("out.tsv");
    put(in, "input bytes");
    et_mapped_file mf;
    et_error err;
    size_t before = et_inputs_in_use();
    ok(et_map_file(&mf, in, &err) == 0 && mf.size == 11 && mf.input_id > 0,
       "a mapped input is registered");
    is_int((long long)et_inputs_in_use(), (long long)before + 1, "... one more input in use");

    ok(write_out(in, "output", &err) == -1, "writing onto the mapped input: refused");
    char want[600];
    snprintf(want, sizeof want,
             "%s: refusing to overwrite an input file with output (the input %s)", in, in);
    is_str(err.msg, want, "... the message names the output and the input");
    is_int(err.kind, ET_ERR_USAGE, "... a usage error");
    is_str(get(in), "input bytes", "... the input is unchanged");

    /* another spelling, a symbolic link, a hard link: the same file */
    char other[300];
    snprintf(other, sizeof other, "%s/./in.etdp", dir);
    ok(write_out(other, "output", &err) == -1 && strstr(err.msg, "(the input ") &&
           strncmp(err.msg, other, strlen(other)) == 0,
       "DIR/./in.etdp: refused, named as written");
    const char *sym = path_in("sym.tsv"), *hard = path_in("hard.tsv");
    ok(symlink("in.etdp", sym) == 0 && write_out(sym, "output", &err) == -1,
       "a symbolic link to the input: refused");
    ok(link(in, hard) == 0 && write_out(hard, "output", &err) == -1,
       "a hard link to the input: refused");
    ok(et_outfile_guard(hard, NULL, &err) == -1 && strstr(err.msg, in),
       "et_outfile_guard alone (the SQLite export's check) names the input");
    is_str(get(in), "input bytes", "... the input is still unchanged");
    is_int(count_prefix("in.etdp."), 0, "... and no temporary file is left beside it");

    /* other outputs are fine; after unmapping, the file is no input */
    ok(write_out(out, "output", &err) == 0 && strcmp(get(out), "output") == 0,
       "another path is written");
    ok(et_outfile_guard(path_in("missing"), NULL, &err) == 0, "a missing path passes the guard");
    et_unmap_file(&mf);
    is_int((long long)et_inputs_in_use(), (long long)before, "unmapped: unregistered");
    ok(write_out(in, "replaced", &err) == 0 && strcmp(get(in), "replaced") == 0,
       "after unmapping, the file may be replaced");

    /* explicit input lists still count */
    const char *list[] = {out, NULL};
    et_outfile of;
    ok(et_outfile_open(&of, out, list, &err) == -1 && strstr(err.msg, "(the input "),
       "a path in the caller's inputs list: refused");

    /* inputs held without a mapping, and unguarded mappings */
    int id = et_input_hold(out, NULL, 0, &err);
    ok(id > 0 && et_outfile_guard(out, NULL, &err) == -1, "et_input_hold: guarded");
    et_input_release(id);
    ok(et_outfile_guard(out, NULL, &err) == 0, "released: writable");
    et_map_options npy = {0, NULL, false, true};
    ok(et_map_file_ex(&mf, out, &npy, &err) == 0 && et_outfile_guard(out, NULL, &err) == 0,
       "an unguarded mapping (a .npy array) may be rewritten");
    ok(et_input_at(mf.data) != NULL && strcmp(et_input_at(mf.data), out) == 0 &&
           et_input_at(mf.data + mf.size - 1) != NULL && et_input_at(mf.data + mf.size) == NULL,
       "et_input_at names the mapping holding an address, and only inside it");
    et_unmap_file(&mf);
    ok(et_input_at(mf.data) == NULL, "... not after unmapping");
}

static void test_check_first(void)
{
    const char *big = path_in("big.etdp");
    FILE *f = fopen(big, "w");
    ok(f && ftruncate(fileno(f), (off_t)3 << 30) == 0, "a 3 GiB sparse file");
    if (f)
        fclose(f);
    et_mapped_file mf;
    et_error err;
    et_map_options fb = {(uint64_t)INT32_MAX, "larger than a FlatBuffer can be (2 GiB)", true,
                         false};
    size_t before = et_inputs_in_use();
    ok(et_map_file_ex(&mf, big, &fb, &err) == -1 && mf.data == NULL,
       "above the format's limit: refused before mapping");
    char want[400];
    snprintf(want, sizeof want,
             "%s: file is 3221225472 bytes, larger than a FlatBuffer can be (2 GiB)", big);
    is_str(err.msg, want, "... message");
    is_int(err.kind, ET_ERR_FORMAT, "... a format error");
    is_int((long long)et_inputs_in_use(), (long long)before, "... nothing registered");
    fb.too_large = NULL;
    fb.max_size = 1000;
    ok(et_map_file_ex(&mf, big, &fb, &err) == -1 && strstr(err.msg, "larger than the 1000-byte limit"),
       "a limit without a text: a generic message");
    /* a .npy in the other byte order is swapped into memory: at most
     * ET_NPY_MAX_SWAP bytes (a native one is read in place) */
    const char *npy = path_in("big.npy");
    for (int be = 0; be < 2; be++) {
        char head[128];
        int hl = snprintf(head, sizeof head,
                          "{'descr': '%cf4', 'fortran_order': False, 'shape': (67108865,), }",
                          be ? '>' : '<');
        while ((hl + 11) % 64)
            head[hl++] = ' ';
        head[hl++] = '\n';
        FILE *nf = fopen(npy, "w");
        fwrite("\x93NUMPY\x01\x00", 1, 8, nf);
        fputc(hl & 0xff, nf);
        fputc(hl >> 8, nf);
        fwrite(head, 1, (size_t)hl, nf);
        ok(ftruncate(fileno(nf), 10 + hl + (off_t)67108865 * 4) == 0, "a sparse %s .npy of 256 MiB + 4",
           be ? "big-endian" : "little-endian");
        fclose(nf);
        et_npy n;
        int rc = et_npy_open(&n, npy, &err);
        if (be) {
            ok(rc == -1, "... big-endian: refused");
            char want_npy[400];
            snprintf(want_npy, sizeof want_npy,
                     "%s: descr '>f4': 268435460 bytes in the other byte order, more than the "
                     "268435456 that are byte-swapped in memory (ET_NPY_MAX_SWAP)",
                     npy);
            is_str(err.msg, want_npy, "... message");
        } else {
            ok(rc == 0 && n.tensor.numel == 67108865, "... native: mapped, read in place");
            et_npy_close(&n);
        }
    }
    unlink(npy);
    /* lazily mapped: 3 GiB of address space, nothing read */
    ok(et_map_file(&mf, big, &err) == 0 && mf.size == (size_t)3 << 30, "mapped lazily");
    et_unmap_file(&mf);
    unlink(big);
}

static void test_temporaries(void)
{
    const char *dest = path_in("sig.json");
    et_outfile of;
    et_error err;
    ok(et_outfile_open(&of, dest, NULL, &err) == 0 && of.tmp && of.temp_slot >= 0,
       "an output's temporary file is registered");
    fputs("{\"half\": ", of.fp);
    fflush(of.fp);
    is_int(count_prefix("sig.json."), 1, "... it exists beside the destination");
    et_temp_remove_all(); /* what the SIGTERM handler does */
    is_int(count_prefix("sig.json."), 0, "et_temp_remove_all removed it");
    et_outfile_abort(&of);
    ok(access(dest, F_OK) != 0, "... and the destination was never created");

    char a[64] = "x", b[64] = "y";
    int sa = et_temp_track(a), sb = et_temp_track(b);
    ok(sa >= 0 && sb >= 0 && sa != sb, "two temporaries, two slots");
    et_temp_untrack(sa);
    et_temp_untrack(sb);
    et_temp_untrack(-1);
    int n = 0, slots[80];
    while (n < 80 && (slots[n] = et_temp_track(a)) >= 0)
        n++;
    is_int(n, 64, "64 slots, then -1 (the file is just not removed on a signal)");
    for (int i = 0; i < n; i++)
        et_temp_untrack(slots[i]);
}

static void test_write_errors(void)
{
    et_error err;
    if (access("/dev/full", W_OK) != 0) {
        skip_n(3, "no /dev/full");
        return;
    }
    et_outfile of;
    ok(et_outfile_open(&of, "/dev/full", NULL, &err) == 0 && of.tmp == NULL,
       "/dev/full: written directly (not a regular file)");
    for (int i = 0; i < 100000; i++)
        fputs("0123456789", of.fp);
    ok(et_outfile_fail(&of, &err) == -1, "a writer failed: et_outfile_fail");
    is_str(err.msg, "/dev/full: write failed: No space left on device",
           "... the message names the path and the reason");
    ok(write_out(path_in("no-such-dir/x.tsv"), "x", &err) == -1 &&
           strstr(err.msg, "cannot create a file beside it: No such file or directory"),
       "a missing directory: the reason");
    ok(write_out(dir, "x", &err) == -1 && strstr(err.msg, "is a directory"),
       "a directory: refused");
    /* fsync: a committed output is complete on disk (it is read back) */
    ok(write_out(path_in("synced.tsv"), "all of it\n", &err) == 0 &&
           strcmp(get(path_in("synced.tsv")), "all of it\n") == 0,
       "committed: fsync()ed, renamed, complete");
}

/* A temporary file that cannot grow (RLIMIT_FSIZE, in a child process):
 * the stream that writes it back as it goes reports the write's error, the
 * commit fails naming it, and neither the output nor the temporary file
 * is left.  Also a large output through that stream arrives whole. */
static void test_stream(void)
{
    et_error err;
    /* 3 MB through the stream (three writeback spans), read back */
    et_outfile of;
    const char *big = path_in("big.txt");
    if (ok(et_outfile_open(&of, big, NULL, &err) == 0 && of.tmp && of.fd >= 0,
           "a regular file: a temporary file and its descriptor")) {
        for (int i = 0; i < 300000; i++)
            fprintf(of.fp, "%09d\n", i);
        ok(et_outfile_commit(&of, &err) == 0, "3 MB written and committed");
        tap_bytes b = tap_read_file(big);
        int in_order = b.p && b.n == 3000000;
        for (int i = 0; in_order && i < 300000; i++) {
            char want[16];
            snprintf(want, sizeof want, "%09d\n", i);
            in_order = memcmp(b.p + 10 * (size_t)i, want, 10) == 0;
        }
        ok(in_order, "... all 3,000,000 bytes, in order");
        free(b.p);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN); /* write fails with EFBIG instead */
        struct rlimit rl = {100000, 100000};
        setrlimit(RLIMIT_FSIZE, &rl);
        const char *dest = path_in("capped.txt");
        et_outfile o;
        if (et_outfile_open(&o, dest, NULL, &err) != 0)
            _exit(10);
        char *tmp = strdup(o.tmp);
        for (int i = 0; i < 100000; i++)
            fputs("0123456789", o.fp);
        int rc = et_outfile_commit(&o, &err);
        if (rc == 0)
            _exit(11);
        if (!strstr(err.msg, "capped.txt: write failed: File too large"))
            _exit(12);
        if (access(dest, F_OK) == 0 || access(tmp, F_OK) == 0)
            _exit(13);
        _exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "a file that cannot grow: the commit fails with \"DEST: write failed: File too large\", "
       "leaving neither the output nor the temporary file (child exit %d)",
       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        skip_all("cannot make a scratch directory");
        return 0;
    }
    test_guard();
    test_check_first();
    test_temporaries();
    test_write_errors();
    test_stream();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
