/*
 * test_outfile.c - the registry of inputs in use and the output guard
 * (mapfile.h, outfile.h), checking before mapping, temporary files removed
 * on a signal, write errors that name the path and the reason (issue 14);
 * descriptors written in place, owners, modes and hard links kept, outputs
 * that clash (issue 25).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
    unlink(hard); /* a file with other hard links is never replaced (test_keep) */
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

/* Outputs that name a descriptor (issue 25, 1): written through it, in
 * place - a file opened for appending keeps its lines, inode and mode. */
static void test_descriptors(void)
{
    const char *log = path_in("log.txt");
    put(log, "earlier\n");
    chmod(log, 0600);
    struct stat before, after;
    stat(log, &before);
    int fd = open(log, O_WRONLY | O_APPEND);
    int n = fcntl(fd, F_DUPFD, 40); /* as the shell's >> gives it */
    close(fd);
    char p1[64], p2[64], p3[64];
    snprintf(p1, sizeof p1, "/dev/fd/%d", n);
    snprintf(p2, sizeof p2, "/proc/self/fd/%d", n);
    snprintf(p3, sizeof p3, "/proc/%ld/fd/%d", (long)getpid(), n);
    const char *sym = path_in("to-fd");
    ok(symlink(p2, sym) == 0, "a symbolic link to /proc/self/fd/N");
    is_int(et_outfile_descriptor(p1), n, "et_outfile_descriptor(/dev/fd/N) = N");
    is_int(et_outfile_descriptor(p2), n, "... /proc/self/fd/N");
    is_int(et_outfile_descriptor(p3), n, "... /proc/PID/fd/N");
    is_int(et_outfile_descriptor(sym), n, "... a link to one");
    is_int(et_outfile_descriptor("/dev/stdout"), 1, "... /dev/stdout: 1");
    is_int(et_outfile_descriptor(log), -1, "... a plain path: -1");
    is_int(et_outfile_descriptor("/proc/1/fd/1"), getpid() == 1 ? 1 : -2,
           "... another process's descriptor: -2");
    et_error err;
    const char *paths[] = {p1, p2, p3, sym};
    for (int i = 0; i < 4; i++) {
        et_outfile of;
        int rc = et_outfile_open(&of, paths[i], NULL, &err);
        ok(rc == 0 && of.tmp == NULL, "%s: opened in place (no temporary file)", paths[i]);
        if (rc == 0) {
            fprintf(of.fp, "line %d\n", i);
            ok(et_outfile_commit(&of, &err) == 0, "... committed");
        }
    }
    is_str(get(log), "earlier\nline 0\nline 1\nline 2\nline 3\n",
           "the earlier line kept, each output appended");
    stat(log, &after);
    ok(after.st_ino == before.st_ino && (after.st_mode & 07777) == 0600,
       "... the same inode, mode still 0600");
    ok(fcntl(n, F_GETFD) >= 0, "... and the descriptor itself stays open");

    int ro = open(log, O_RDONLY);
    int rn = fcntl(ro, F_DUPFD, 50);
    close(ro);
    char rp[64];
    snprintf(rp, sizeof rp, "/dev/fd/%d", rn);
    et_outfile of;
    ok(et_outfile_open(&of, rp, NULL, &err) == -1 && strstr(err.msg, "is not open for writing"),
       "a read-only descriptor: refused (%s)", err.msg);
    close(rn);
    ok(et_outfile_open(&of, rp, NULL, &err) == -1 && strstr(err.msg, "is not open"),
       "a closed descriptor: refused");
    ok(et_outfile_check(rp, NULL, &err) == -1, "... et_outfile_check says so too");
    const char *list[] = {log, NULL};
    ok(et_outfile_open(&of, p1, list, &err) == -1 && strstr(err.msg, "(the input "),
       "a descriptor open on an input: refused");
    close(n);
    is_str(get(log), "earlier\nline 0\nline 1\nline 2\nline 3\n", "... nothing written");
}

/* A replaced file keeps its owner, group and mode; a file with other hard
 * links is refused; an empty path is refused (issue 25, 2 and 16). */
static void test_keep(void)
{
    et_error err;
    const char *rep = path_in("private.tsv");
    put(rep, "old");
    chmod(rep, 0640);
    int root = geteuid() == 0;
    if (root && chown(rep, 65534, 65534) != 0)
        root = 0;
    ok(write_out(rep, "new", &err) == 0 && strcmp(get(rep), "new") == 0, "a 0640 file replaced");
    struct stat st;
    stat(rep, &st);
    is_int(st.st_mode & 07777, 0640, "... still 0640");
    if (root)
        ok(st.st_uid == 65534 && st.st_gid == 65534, "... still owned by 65534:65534");
    else
        skip_n(1, "not root: cannot give a file another owner");
    mode_t um = umask(027);
    const char *fresh = path_in("fresh.tsv");
    ok(write_out(fresh, "x", &err) == 0 && stat(fresh, &st) == 0 && (st.st_mode & 07777) == 0640,
       "a new file: 0666 & ~umask (umask 027: 0640)");
    umask(um);

    const char *a = path_in("linked.tsv"), *b = path_in("other-name.tsv");
    put(a, "shared");
    ok(link(a, b) == 0, "a file with a second hard link");
    ok(write_out(a, "new", &err) == -1 && strstr(err.msg, "has 2 hard links"),
       "... replacing it: refused (%s)", err.msg);
    is_int(err.kind, ET_ERR_IO, "... an I/O error (exit 1)");
    ok(strcmp(get(a), "shared") == 0 && strcmp(get(b), "shared") == 0 &&
           count_prefix("linked.tsv.") == 0,
       "... both names keep the contents, no temporary file left");
    ok(et_outfile_check(b, NULL, &err) == -1 && strstr(err.msg, "hard links"),
       "et_outfile_check refuses it before anything is opened");
    unlink(b);
    ok(write_out(a, "new", &err) == 0 && strcmp(get(a), "new") == 0,
       "one link left: replaced");

    et_outfile of;
    ok(et_outfile_open(&of, "", NULL, &err) == -1 && err.kind == ET_ERR_USAGE &&
           strcmp(err.msg, "the output path is empty") == 0,
       "an empty path: a usage error");
    ok(et_outfile_check("", NULL, &err) == -1 && err.kind == ET_ERR_USAGE,
       "... et_outfile_check too");

    if (!root) {
        skip_n(1, "not root: cannot make another user's file");
        return;
    }
    /* another user writes over root's file (a writable one in a writable
     * directory): the owner cannot be kept, so it is refused */
    const char *theirs = path_in("roots.tsv");
    put(theirs, "root's");
    chmod(theirs, 0666);
    chmod(dir, 0777);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(10);
        if (write_out(theirs, "nobody's", &err) != -1)
            _exit(11);
        if (!strstr(err.msg, "cannot keep its owner (user 0, group 0)"))
            _exit(12);
        if (strcmp(get(theirs), "root's") != 0 || count_prefix("roots.tsv.") != 0)
            _exit(13);
        _exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    chmod(dir, 0700);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "another user's file whose owner cannot be kept: refused, left as it was (child exit %d)",
       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Two outputs that name one file (issue 25, 3). */
static void test_clash(void)
{
    char dot[300];
    snprintf(dot, sizeof dot, "%s/./x.tsv", dir);
    const char *x = path_in("x.tsv"), *y = path_in("y.tsv"), *sym = path_in("x-link");
    ok(et_outfile_clash(x, dot), "not there yet: the same canonical path clashes");
    ok(!et_outfile_clash(x, y), "... two paths do not");
    ok(symlink("x.tsv", sym) == 0 && et_outfile_clash(sym, x),
       "a symbolic link to a file not there yet clashes with it");
    put(x, "x");
    ok(et_outfile_clash(sym, dot), "an existing file: by device and inode");
    const char *h = path_in("x-hard");
    ok(link(x, h) == 0 && et_outfile_clash(h, x), "... a hard link clashes");
    ok(!et_outfile_clash(x, y), "an existing file and a new one do not");
    ok(!et_outfile_clash("/dev/null", "/dev/null"), "two streams written in place do not");
    ok(!et_outfile_clash("/dev/stdout", "/dev/stdout"), "... nor two descriptors");
}

/* et_outfile_commit_all over files of which one was aborted before (as
 * the Parquet writer drops an identical dump's files): the others are
 * renamed and their directory synced; the aborted entry, which has no
 * name left, is skipped (it was read as a name: a crash under a
 * sanitizer, undefined behaviour anywhere). */
static void test_commit_all_aborted(void)
{
    et_outfile ofs[3];
    et_error err;
    const char *names[3] = {"all1.txt", "all2.txt", "all3.txt"};
    int opened = 0;
    for (int i = 0; i < 3; i++)
        opened += et_outfile_open(&ofs[i], path_in(names[i]), NULL, &err) == 0;
    if (!ok(opened == 3, "three outputs in one directory"))
        return;
    for (int i = 0; i < 3; i++)
        fputs(names[i], ofs[i].fp);
    et_outfile_abort(&ofs[1]);
    ok(et_outfile_commit_all(ofs, 3, &err) == 0, "commit_all with the middle one aborted: 0");
    const char *one = get(path_in("all1.txt"));
    bool first = one && strcmp(one, "all1.txt") == 0;
    const char *three = get(path_in("all3.txt"));
    ok(first && three && strcmp(three, "all3.txt") == 0 && access(path_in("all2.txt"), F_OK) != 0,
       "... the other two are there, whole; the aborted one is not");
    is_int(count_prefix("all2.txt."), 0, "... and no temporary file is left");
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
    test_descriptors();
    test_keep();
    test_clash();
    test_commit_all_aborted();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
