/*
 * repl.c - the interactive shell (libedit); its Lua half is
 * lua/etinspect/repl.lua (meta commands, display, completion).
 *
 *  - input that is not a terminal is read by the bounded line reader
 *    (linereader.h), never by libedit: a NUL byte or a line over 1 MiB
 *    ends the session with a message naming the line (exit status 1);
 *  - line editing and history (libedit, in a UTF-8 LC_CTYPE so that
 *    non-ASCII bytes pass); the history file is
 *    $XDG_STATE_HOME/etinspect/history, else ~/.local/state/etinspect/history,
 *    read and written only when standard input is a terminal: each entry is
 *    appended as it runs (a closed terminal loses nothing), and the file is
 *    only ever rewritten whole through a temporary file, synced and renamed
 *    (trimmed to its last HISTORY_KEEP entries), so it is never truncated;
 *  - Tab completion of Lua (index expressions, fields after '.', methods
 *    after ':', keys inside Inspector{...}), meta commands, file names
 *    after .open and inside string literals; it never runs user code;
 *  - a bare expression prints its value through etinspect.display: frames
 *    in the .mode, cut to the display options, fitted to the terminal
 *    (display.width follows its width); output taller or wider than the
 *    terminal goes through $PAGER (default less; .pager off), as psql does;
 *  - an incomplete statement continues on the next line (">> ");
 *  - Ctrl-C stops a running statement (a count hook, so loops that catch
 *    errors stop too) or the printing of a result, and returns to the
 *    prompt; at the prompt it discards the line;
 *  - an error prints its traceback and the shell goes on; a meta command's
 *    error prints its message;
 *  - every call into Lua runs under lua_pcall: no input can panic the
 *    process, whatever it does to the globals or the registry;
 *  - on a terminal, the startup file $XDG_CONFIG_HOME/etinspect/init.lua
 *    (else ~/.config/etinspect/init.lua) runs before the first prompt
 *    unless --no-init; its errors are printed and the shell goes on;
 *  - ?x shows help(x) (etinspect.help, read from docs/lua-api.md).
 */
#include "repl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <lauxlib.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <editline/readline.h>

#include "host.h"
#include "linereader.h"
#include "base/version.h"
#include "files/mapfile.h"

#define REPL_KEY "etinspect.repl"            /* registry: the Lua half, set up */
#define REQUIRE_KEY "etinspect.repl.require" /* registry: require, as at the start */

static lua_State *g_L;
static volatile sig_atomic_t g_interrupted; /* Ctrl-C since the statement began */
static volatile sig_atomic_t g_running;     /* Lua code of a statement runs */
/* The thread that last ran Lua code of a statement (the main thread or a
 * coroutine), anchored in the registry under its own address; the
 * Ctrl-C handler sets its hook */
static lua_State *volatile g_current;

/* ---- Ctrl-C ---- */

/* While a statement runs, its threads carry a call and return hook
 * (WATCH_MASK; coroutines created then inherit it): it notes which thread
 * runs, and after Ctrl-C raises.  The Ctrl-C handler gives the main thread
 * and the running one a count hook of 1 (lua_sethook is safe in a signal
 * handler), which stops even a loop that calls nothing; every instruction
 * of the thread then raises, so a loop whose body catches the error is
 * stopped in its own code too.  A count hook makes the VM check every
 * instruction (Lua code ran 2.5 times slower in the REPL when one was set
 * for every statement); a call hook costs only calls. */
#define WATCH_MASK (LUA_MASKCALL | LUA_MASKRET)

/* Note L as the running thread, anchored in the registry so that the
 * Ctrl-C handler may set its hook. */
static void note_thread(lua_State *L)
{
    g_current = L; /* first: the running thread is alive whatever runs next */
    lua_pushthread(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, (const void *)&g_current);
}

static void check_hook(lua_State *L, lua_Debug *ar)
{
    if (L != g_current) /* a resume, or a yield returning */
        note_thread(L);
    if (g_running && g_interrupted) {
        lua_sethook(L, check_hook, LUA_MASKCOUNT, 1);
        luaL_error(L, "interrupted!");
    }
    if (ar->event == LUA_HOOKCOUNT) /* a count hook left from an earlier Ctrl-C */
        lua_sethook(L, check_hook, WATCH_MASK, 0);
}

static void on_sigint(int sig)
{
    (void)sig;
    g_interrupted = 1;
    if (g_running && g_L) {
        lua_State *co = g_current;
        lua_sethook(g_L, check_hook, LUA_MASKCOUNT, 1);
        if (co && co != g_L)
            lua_sethook(co, check_hook, LUA_MASKCOUNT, 1);
    }
}

/* Start watching a statement's threads for Ctrl-C (main thread L). */
static void watch(lua_State *L)
{
    g_interrupted = 0;
    note_thread(L);
    lua_sethook(L, check_hook, WATCH_MASK, 0);
    g_running = 1;
}

/* ---- the Lua half, always called protected ---- */

/* Lua: list_dir(path) -> {name = is_directory, ...} (for completion). */
static int list_dir(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    lua_newtable(L);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) && n++ < 10000) {
        struct stat st;
        lua_pushfstring(L, "%s/%s", path, e->d_name);
        int dir = stat(lua_tostring(L, -1), &st) == 0 && S_ISDIR(st.st_mode);
        lua_pop(L, 1);
        lua_pushboolean(L, dir);
        lua_setfield(L, -2, e->d_name);
    }
    closedir(d);
    return 1;
}

/* Protected: the global etinspect = require "etinspect", and require as
 * the REPL's start found it (registry REQUIRE_KEY); protected because an
 * -e chunk run before the REPL may have given _G metamethods that raise. */
static int start_globals(lua_State *L)
{
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect");
    lua_call(L, 1, 1);
    lua_setglobal(L, "etinspect");
    lua_getglobal(L, "require");
    lua_setfield(L, LUA_REGISTRYINDEX, REQUIRE_KEY);
    return 0;
}

static int write_stdout(lua_State *L);

/* Push the Lua half: the registry's copy, else require("etinspect.repl")
 * (the require of the REPL's start) set up with the host's functions, again
 * when a statement broke it. */
static void push_repl(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, REPL_KEY) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, REQUIRE_KEY) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        lua_getglobal(L, "require");
    }
    lua_pushliteral(L, "etinspect.repl");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK)
        luaL_error(L, "the REPL cannot load its Lua half (etinspect.repl): %s", lua_tostring(L, -1));
    if (lua_type(L, -1) != LUA_TTABLE)
        luaL_error(L, "the REPL cannot load its Lua half: etinspect.repl is a %s value",
                   luaL_typename(L, -1));
    lua_getfield(L, -1, "setup");
    lua_createtable(L, 0, 4);
    lua_pushcfunction(L, et_host_input_kind);
    lua_setfield(L, -2, "input_kind");
    lua_pushcfunction(L, et_host_assign_inputs);
    lua_setfield(L, -2, "assign_inputs");
    lua_pushcfunction(L, list_dir);
    lua_setfield(L, -2, "list_dir");
    lua_pushcfunction(L, write_stdout);
    lua_setfield(L, -2, "write_stdout");
    lua_call(L, 1, 1);
    if (lua_type(L, -1) != LUA_TTABLE)
        luaL_error(L, "etinspect.repl.setup did not return the module");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, REPL_KEY);
    lua_remove(L, -2);
}

/* Protected: repl[fn](args...), upvalue 1 the name; its results. */
static int call_repl(lua_State *L)
{
    int n = lua_gettop(L);
    push_repl(L);
    lua_getfield(L, -1, lua_tostring(L, lua_upvalueindex(1)));
    lua_insert(L, 1);
    lua_pop(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* Protected: repl[upvalue 1](values...) -> text, repl.state.pager; the
 * function is "render" (a statement's values) or "help_text" (?x) */
static int render(lua_State *L)
{
    int n = lua_gettop(L);
    push_repl(L);
    lua_getfield(L, -1, lua_tostring(L, lua_upvalueindex(1)));
    lua_insert(L, 1);
    lua_getfield(L, -1, "state");
    int pager = lua_type(L, -1) == LUA_TTABLE && lua_getfield(L, -1, "pager") == LUA_TBOOLEAN &&
                lua_toboolean(L, -1);
    lua_settop(L, n + 1);
    lua_call(L, n, 1);
    luaL_checkstring(L, -1);
    lua_pushboolean(L, pager);
    return 2;
}

/* The message of the error on top of the stack, of status rc: "out of
 * memory" for a memory error (Lua's own words are "not enough memory"). */
static const char *err_text(lua_State *L, int rc)
{
    if (rc == LUA_ERRMEM)
        return "error: out of memory";
    const char *m = lua_tostring(L, -1);
    return m ? m : "(error object is not a string)";
}

/* Call repl[fn] on the `nargs` values on top of the stack, protected and
 * without traceback; on error print the message.  Leaves `nres` results
 * (LUA_MULTRET: all) and returns 0, or returns -1 with nothing left. */
static int repl_call(lua_State *L, const char *fn, int nargs, int nres)
{
    lua_pushstring(L, fn);
    lua_pushcclosure(L, call_repl, 1);
    lua_insert(L, -nargs - 1);
    int rc = lua_pcall(L, nargs, nres, 0);
    if (rc != LUA_OK) {
        fflush(stdout);
        fprintf(stderr, "%s\n", err_text(L, rc));
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

/* ---- output ---- */

/* Write all of s (stopping at Ctrl-C or a write error); 0 when whole. */
static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        if (g_interrupted)
            return -1;
        ssize_t w = write(fd, s, n < 4096 ? n : 4096);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Does the text need more than rows - 1 lines or more than cols columns? */
static int too_big(const char *s, size_t n, int rows, int cols)
{
    int lines = 0, width = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n') {
            lines++;
            width = 0;
        } else if (((unsigned char)s[i] & 0xC0) != 0x80 && ++width > cols) {
            return 1;
        }
        if (lines >= rows - 1)
            return 1;
    }
    return 0;
}

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];
    for (const char *p = path; p && *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, prog) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* The pager's command: $PAGER (blank: none), else less or more when
 * installed; NULL for none. */
static const char *pager_program(void)
{
    const char *p = getenv("PAGER");
    if (p)
        return p[strspn(p, " \t")] ? p : NULL;
    if (on_path("less"))
        return "less";
    return on_path("more") ? "more" : NULL;
}

/* Can the pager command `prog` run: its first word an executable file
 * (a path) or a program on $PATH?  A first word the shell would read
 * otherwise (quotes, an assignment, an expansion) is left to the shell,
 * whose "cannot run" status (126, 127) emit_text checks instead. */
static int pager_runnable(const char *prog)
{
    char word[1024];
    size_t skip = strspn(prog, " \t"), len = strcspn(prog + skip, " \t");
    if (len == 0 || len >= sizeof word)
        return 0;
    memcpy(word, prog + skip, len);
    word[len] = '\0';
    if (strpbrk(word, "\"'=$`\\~"))
        return 1;
    if (strchr(word, '/'))
        return access(word, X_OK) == 0;
    return on_path(word);
}

static int g_pager_warned; /* the warning about a pager that cannot run, said */

/* Say once that the pager cannot run (what it is, why). */
static void pager_warn(const char *prog, const char *why)
{
    if (!g_pager_warned)
        fprintf(stderr, "etinspect: the pager '%s' (PAGER) %s: output written directly (.pager off "
                        "to stop paging)\n", prog, why);
    g_pager_warned = 1;
}

/* Show text: through the pager when it is on, the output a terminal that
 * can page, and the text does not fit on one screen; else written out in
 * pieces, stopping at Ctrl-C (then saying "interrupted!" when `say`).  A
 * pager that cannot run (not found, or the shell could not start it)
 * loses nothing: the text is written directly, with one warning a
 * session. */
static int emit_text(const char *s, size_t n, int pager, int say)
{
    fflush(stdout);
    int rows, cols;
    const char *term = getenv("TERM"), *prog;
    if (pager && isatty(STDOUT_FILENO) && term && strcmp(term, "dumb") != 0 &&
        et_host_terminal_size(&rows, &cols) && too_big(s, n, rows, cols) && (prog = pager_program())) {
        if (!pager_runnable(prog)) {
            pager_warn(prog, "is not an executable file or a program on PATH");
        } else {
            char cmd[4200];
            snprintf(cmd, sizeof cmd, "export LESS=\"${LESS-FRX}\"; exec %s", prog);
            FILE *p = popen(cmd, "w");
            if (p) {
                struct sigaction ign, old;
                memset(&ign, 0, sizeof ign);
                ign.sa_handler = SIG_IGN;
                sigaction(SIGPIPE, &ign, &old);
                write_all(fileno(p), s, n);
                int st = pclose(p);
                sigaction(SIGPIPE, &old, NULL);
                /* 126, 127: the shell could not run it, and read nothing */
                if (st == -1 || !WIFEXITED(st) || (WEXITSTATUS(st) != 126 && WEXITSTATUS(st) != 127))
                    return 0;
                pager_warn(prog, "could not be started");
            } else {
                pager_warn(prog, "could not be started");
            }
        }
    }
    if (write_all(STDOUT_FILENO, s, n) != 0) {
        if (!g_interrupted)
            return -1;
        if (say)
            fputs("\ninterrupted!\n", stderr);
    }
    return 0;
}

static void emit(const char *s, size_t n, int pager)
{
    emit_text(s, n, pager, 1);
}

/* Protected: repl.state.pager, as a C boolean. */
static int pager_state(lua_State *L)
{
    push_repl(L);
    lua_getfield(L, -1, "state");
    lua_pushboolean(L, lua_type(L, -1) == LUA_TTABLE && lua_getfield(L, -1, "pager") == LUA_TBOOLEAN &&
                           lua_toboolean(L, -1));
    return 1;
}

/* Lua: write_stdout(text), the REPL's writer of standard output for the
 * library (_core.set_stdout_writer): what a call prints in C
 * (insp:print_data_tabular(), frame:print()) is shown as a value is -
 * through the pager when long, its writing stopped by Ctrl-C (the
 * statement then stops at its next instruction, saying "interrupted!"). */
static int write_stdout(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_pushcfunction(L, pager_state);
    int pager = lua_pcall(L, 0, 1, 0) == LUA_OK && lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (emit_text(s, n, pager, 0) != 0)
        return luaL_error(L, "standard output: write failed: %s", strerror(errno));
    return 0;
}

/* ---- history ---- */

static char *history_path(void)
{
    const char *state = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char dir[4096];
    if (state && state[0] == '/')
        snprintf(dir, sizeof dir, "%s/etinspect", state);
    else if (home && home[0])
        snprintf(dir, sizeof dir, "%s/.local/state/etinspect", home);
    else
        return NULL;
    /* create the directory chain (mkdir -p) */
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    mkdir(dir, 0700);
    size_t n = strlen(dir) + sizeof "/history";
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/history", dir);
    return path;
}

/* The history file's format: one entry a line, "\\" for a backslash and
 * "\n" for a newline inside an entry (a statement over several lines),
 * every other byte as it is.  A file written by libedit's write_history
 * (first line "_HiStOrY_V2_") is read by libedit and rewritten in this
 * format. */
#define HISTORY_KEEP 1000                    /* entries kept, in memory and in the file */
#define HISTORY_FILE_MAX ((off_t)64 << 20) /* a larger file is not read */

typedef struct {
    char *path; /* NULL: no history file */
    int fd;     /* open for appending, or -1 */
    int failed; /* a write failed: said once, no more appending */
} history;

/* Say once that the history cannot be saved (what failed, errno). */
static void history_failed(history *h, const char *what)
{
    if (!h->failed)
        fprintf(stderr, "etinspect: history %s: %s: %s; this session's lines are not saved\n",
                h->path, what, strerror(errno));
    h->failed = 1;
}

/* `entry` encoded as a line of the file, with its '\n' (malloc'd), its
 * length in *len; NULL when out of memory. */
static char *history_encode(const char *entry, size_t *len)
{
    size_t n = strlen(entry);
    char *out = malloc(2 * n + 2), *o = out;
    if (!out)
        return NULL;
    for (const char *p = entry; *p; p++) {
        if (*p == '\\' || *p == '\n') {
            *o++ = '\\';
            *o++ = *p == '\n' ? 'n' : '\\';
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\n';
    *len = (size_t)(o - out);
    return out;
}

/* Decode a line of the file in place. */
static void history_decode(char *line)
{
    char *o = line;
    for (char *p = line; *p; p++) {
        if (*p == '\\' && (p[1] == 'n' || p[1] == '\\'))
            *o++ = *++p == 'n' ? '\n' : '\\';
        else
            *o++ = *p;
    }
    *o = '\0';
}

/* Write all `n` bytes of `s` to `fd`; 0, or -1 with errno. */
static int write_full(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Replace the file by the entries in memory: a temporary file beside it,
 * synced, renamed over it; on any failure the file is left as it was. */
static void history_rewrite(history *h)
{
    size_t n = strlen(h->path) + sizeof ".XXXXXX";
    char *tmp = malloc(n);
    if (!tmp)
        return;
    snprintf(tmp, n, "%s.XXXXXX", h->path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        history_failed(h, "cannot create a temporary file");
        free(tmp);
        return;
    }
    HIST_ENTRY **list = history_list();
    int ok = 1;
    for (int i = 0; ok && list && list[i]; i++) {
        size_t len;
        char *line = history_encode(list[i]->line, &len);
        ok = line && write_full(fd, line, len) == 0;
        free(line);
    }
    ok = ok && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, h->path) == 0) {
        char *slash = strrchr(h->path, '/');
        if (slash) { /* the rename itself, durable */
            *slash = '\0';
            int d = open(h->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            *slash = '/';
            if (d >= 0) {
                fsync(d);
                close(d);
            }
        }
    } else {
        int e = errno;
        unlink(tmp);
        errno = e;
        history_failed(h, "cannot rewrite");
    }
    free(tmp);
}

/* Read the history file into libedit's history (its last HISTORY_KEEP
 * entries), rewriting it when it holds twice as many or is in libedit's
 * format. */
static void history_load(history *h)
{
    stifle_history(HISTORY_KEEP);
    /* without blocking, then checked: a FIFO as the history never waits */
    struct stat st;
    et_error ignored;
    int fd = et_open_regular(h->path, &st, &ignored);
    if (fd < 0 && errno != 0)
        return; /* no history yet */
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (fd >= 0 && !f)
        close(fd);
    if (!f || st.st_size > HISTORY_FILE_MAX) {
        if (f)
            fclose(f);
        fprintf(stderr, "etinspect: history %s: not a regular file of at most 64 MiB; not read\n",
                h->path);
        h->failed = 1; /* left alone */
        return;
    }
    char *line = NULL;
    size_t cap = 0, count = 0;
    ssize_t n;
    int legacy = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (count == 0 && strcmp(line, "_HiStOrY_V2_") == 0) {
            legacy = 1;
            break;
        }
        count++;
        if (memchr(line, '\0', (size_t)n)) /* not written by us: skipped */
            continue;
        history_decode(line);
        if (line[0])
            add_history(line);
    }
    free(line);
    fclose(f);
    if (legacy) {
        clear_history();
        read_history(h->path);
    }
    if (legacy || count > 2 * HISTORY_KEEP)
        history_rewrite(h);
}

/* A new entry: into libedit's history, and appended to the file at once
 * (one write of the whole line, O_APPEND: sessions side by side interleave
 * whole entries). */
static void history_add(history *h, const char *entry)
{
    add_history(entry);
    if (!h->path || h->failed)
        return;
    if (h->fd < 0) {
        h->fd = open(h->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (h->fd < 0) {
            history_failed(h, "cannot open");
            return;
        }
        /* a last line cut short (a write that failed before) stays apart */
        struct stat st;
        char last;
        if (fstat(h->fd, &st) == 0 && st.st_size > 0 &&
            pread(h->fd, &last, 1, st.st_size - 1) == 1 && last != '\n' &&
            write_full(h->fd, "\n", 1) != 0) {
            history_failed(h, "cannot write");
            return;
        }
    }
    size_t len;
    char *line = history_encode(entry, &len);
    if (!line) {
        errno = ENOMEM;
        history_failed(h, "cannot write");
        return;
    }
    if (write_full(h->fd, line, len) != 0)
        history_failed(h, "cannot write");
    free(line);
}

static void history_close(history *h)
{
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
    free(h->path);
    h->path = NULL;
}

/* ---- the startup file ---- */

#define INIT_MAX ((off_t)16 << 20) /* a larger startup file is not run */

/* The startup file's path (malloc'd): $XDG_CONFIG_HOME/etinspect/init.lua,
 * else ~/.config/etinspect/init.lua; NULL without either variable. */
static char *init_path(void)
{
    const char *config = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    char buf[4096];
    if (config && config[0] == '/')
        snprintf(buf, sizeof buf, "%s/etinspect/init.lua", config);
    else if (home && home[0])
        snprintf(buf, sizeof buf, "%s/.config/etinspect/init.lua", home);
    else
        return NULL;
    return strdup(buf);
}

/* Run the startup file, as IPython's startup files and .psqlrc: Lua
 * source (never bytecode) run in the REPL's globals before the first
 * prompt, interruptible by Ctrl-C.  No file: nothing.  Any failure (not a
 * regular file, over 16 MiB, a syntax error, an error it raises) is
 * printed, naming the file, and the shell goes on. */
static void run_init(lua_State *L)
{
    char *path = init_path();
    if (!path)
        return;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            fprintf(stderr, "etinspect: startup file %s: %s; not run\n", path, strerror(errno));
        free(path);
        return;
    }
    size_t n = 0;
    char *code = NULL;
    et_error err;
    if (!S_ISREG(st.st_mode) || st.st_size > INIT_MAX)
        fprintf(stderr, "etinspect: startup file %s: not a regular file of at most 16 MiB; not "
                        "run\n", path);
    else if (!(code = et_read_regular(path, &n, &err)))
        fprintf(stderr, "etinspect: startup file %s; not run\n", err.msg);
    if (!code) {
        free(path);
        return;
    }
    int base = lua_gettop(L);
    lua_pushfstring(L, "@%s", path);
    int rc = luaL_loadbufferx(L, code, n, lua_tostring(L, -1), "t");
    free(code);
    lua_remove(L, base + 1);
    if (rc == LUA_OK) {
        watch(L);
        rc = et_host_pcall(L, 0, 0);
        g_running = 0;
    }
    fflush(stdout);
    if (rc != LUA_OK)
        fprintf(stderr, "etinspect: startup file %s: %s\n(the shell goes on; etinspect --no-init "
                        "skips the file)\n",
                path, g_interrupted ? "interrupted!" : err_text(L, rc));
    lua_settop(L, base);
    free(path);
}

/* ---- completion ---- */

static char **g_matches; /* this completion's candidates, relative to libedit's text */
static size_t g_n_matches;

static void free_matches(void)
{
    for (size_t i = 0; i < g_n_matches; i++)
        free(g_matches[i]);
    free(g_matches);
    g_matches = NULL;
    g_n_matches = 0;
}

static char *generator(const char *text, int state)
{
    static size_t i;
    (void)text;
    if (state == 0)
        i = 0;
    return i < g_n_matches ? strdup(g_matches[i++]) : NULL;
}

/* repl.complete(line, cursor) gives candidates replacing line[start..cursor);
 * libedit replaces only its own word `text` (split at its break
 * characters), which ends that span: each candidate loses the part before
 * it. */
static char **complete(const char *text, int start, int end)
{
    (void)start;
    rl_attempted_completion_over = 1;
    rl_completion_append_character = '\0';
    free_matches();
    lua_State *L = g_L;
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 8))
        return NULL;
    lua_pushstring(L, rl_line_buffer ? rl_line_buffer : "");
    lua_pushinteger(L, end);
    if (repl_call(L, "complete", 2, 3) != 0) {
        rl_on_new_line();
        return NULL;
    }
    size_t tlen = strlen(text);
    lua_Integer from = lua_tointeger(L, top + 2); /* 1-based */
    const char *line = rl_line_buffer ? rl_line_buffer : "";
    size_t elen = from >= 1 && from <= end + 1 ? (size_t)(end - (from - 1)) : 0;
    const char *append = lua_tostring(L, top + 3);
    if (lua_type(L, top + 1) == LUA_TTABLE && elen >= tlen &&
        memcmp(line + (from - 1) + (elen - tlen), text, tlen) == 0) {
        size_t skip = elen - tlen;
        lua_Integer n = luaL_len(L, top + 1);
        g_matches = calloc((size_t)(n > 0 ? n : 1), sizeof *g_matches);
        for (lua_Integer i = 1; g_matches && i <= n; i++) {
            size_t len;
            lua_rawgeti(L, top + 1, i);
            const char *c = lua_tolstring(L, -1, &len);
            if (c && len >= skip && memcmp(c, line + from - 1, skip) == 0) {
                char *m = strdup(c + skip);
                if (m)
                    g_matches[g_n_matches++] = m;
            }
            lua_pop(L, 1);
        }
    }
    if (g_n_matches == 1 && append && append[0])
        rl_completion_append_character = append[0];
    lua_settop(L, top);
    if (g_n_matches == 0)
        return NULL;
    return rl_completion_matches(text, generator);
}

/* ---- input ---- */

/* Where lines come from: libedit on a terminal, else the bounded line
 * reader (linereader.h), never libedit. */
typedef struct {
    int tty;
    int fd;          /* standard input, for the line reader */
    et_linereader r; /* input that is not a terminal */
    int status;      /* 1 once the input was refused (a NUL byte, a line too long) */
} input;

/* Let libedit pass non-ASCII bytes: it reads characters in the locale's
 * encoding (LC_CTYPE), and in the "C" locale it drops every byte above
 * 127 (print("µs") arrived as print("s")).  So LC_CTYPE is the user's
 * locale, or C.UTF-8 when that one is not UTF-8; only LC_CTYPE changes (the
 * decimal point and the rest stay "C"). */
static void terminal_locale(void)
{
    if (setlocale(LC_CTYPE, "") && strcmp(nl_langinfo(CODESET), "UTF-8") == 0)
        return;
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "C");
}

/* The next line, malloc'd (the caller frees it), or NULL at the end of
 * input, and also when *interrupted is set (Ctrl-C: a read interrupted)
 * or in->status (the input was refused; the reason printed). */
static char *next_line(input *in, const char *prompt, int *interrupted)
{
    *interrupted = 0;
    if (in->tty) {
        char *line = readline(prompt);
        if (!line && (g_interrupted || errno == EINTR)) {
            errno = 0;
            *interrupted = 1;
        }
        return line;
    }
    char *line;
    size_t len;
    switch (et_linereader_next(&in->r, &line, &len)) {
    case ET_LINE_OK: {
        char *copy = malloc(len + 1);
        if (!copy) {
            fprintf(stderr, "etinspect: stdin: out of memory\n");
            in->status = 1;
            return NULL;
        }
        memcpy(copy, line, len + 1);
        return copy;
    }
    case ET_LINE_INTERRUPTED:
        *interrupted = 1;
        return NULL;
    case ET_LINE_NUL:
        fprintf(stderr, "etinspect: stdin:%zu: a NUL byte at byte %zu of the line: the REPL reads "
                        "text; input ends here\n", in->r.line_no, in->r.nul_at + 1);
        in->status = 1;
        return NULL;
    case ET_LINE_TOO_LONG:
        fprintf(stderr, "etinspect: stdin:%zu: a line longer than %zu bytes (1 MiB): input ends "
                        "here\n", in->r.line_no, ET_LINE_MAX);
        in->status = 1;
        return NULL;
    case ET_LINE_ERROR:
        fprintf(stderr, "etinspect: stdin: %s\n", strerror(in->r.error));
        in->status = 1;
        return NULL;
    case ET_LINE_END:
        break;
    }
    return NULL;
}

/* ---- the loop ---- */

/* Compile `code` as an expression ("return CODE") or a statement. Returns
 * LUA_OK with the chunk on the stack, LUA_ERRSYNTAX with "incomplete"
 * when more input is needed, or another status with the message. */
static int compile(lua_State *L, const char *code, int *incomplete)
{
    *incomplete = 0;
    size_t n = strlen(code);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "return ");
    luaL_addlstring(&b, code, n);
    luaL_addchar(&b, ';');
    luaL_pushresult(&b);
    int rc = luaL_loadbufferx(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=stdin", "t");
    lua_remove(L, -2);
    if (rc == LUA_OK)
        return rc;
    lua_pop(L, 1);
    rc = luaL_loadbufferx(L, code, n, "=stdin", "t");
    if (rc == LUA_ERRSYNTAX) {
        size_t len;
        const char *m = lua_tolstring(L, -1, &len);
        if (len >= 5 && strcmp(m + len - 5, "<eof>") == 0)
            *incomplete = 1;
    }
    return rc;
}

/* Run one statement (compiled, on the stack above `base`) and show its
 * results with repl[show] ("render"; "help" for ?x). */
static void run_statement(lua_State *L, int base, const char *show)
{
    int rows, cols;
    if (isatty(STDOUT_FILENO) && et_host_terminal_size(&rows, &cols)) {
        int top = lua_gettop(L);
        lua_pushinteger(L, cols);
        if (repl_call(L, "terminal", 1, 0) != 0)
            lua_settop(L, top);
    }
    watch(L);
    int rc = et_host_pcall(L, 0, LUA_MULTRET);
    int n = lua_gettop(L) - base;
    int always = strcmp(show, "render") != 0; /* ?x shows help() for no value */
    if (rc == LUA_OK && (n > 0 || always)) {
        /* render the results, still interruptible */
        lua_pushstring(L, show);
        lua_pushcclosure(L, render, 1);
        lua_insert(L, base + 1);
        rc = et_host_pcall(L, n, 2);
    }
    g_running = 0;
    fflush(stdout);
    if (rc != LUA_OK) {
        if (g_interrupted) {
            fputs("interrupted!\n", stderr);
        } else {
            fprintf(stderr, "%s\n", err_text(L, rc));
        }
    } else if (n > 0 || always) {
        size_t len;
        const char *s = lua_tolstring(L, -2, &len);
        if (s)
            emit(s, len, lua_toboolean(L, -1));
    }
    lua_settop(L, base);
    lua_gc(L, LUA_GCSTEP, 0);
}

int et_repl_run(lua_State *L, int no_init)
{
    int tty = isatty(STDIN_FILENO);
    input in = {.tty = tty, .fd = STDIN_FILENO};
    et_linereader_init(&in.r, et_line_read_fd, &in.fd);
    history hist = {NULL, -1, 0};
    g_L = L;
    /* the etinspect global and the Lua half, loaded up front so that a
     * broken install says so at once */
    lua_pushcfunction(L, start_globals);
    int src = et_host_pcall(L, 0, 0);
    if (src != LUA_OK) {
        fprintf(stderr, "etinspect: %s\n", err_text(L, src));
        return 1;
    }
    lua_pushliteral(L, "render"); /* repl.render() loads and sets up the Lua half */
    lua_pushcclosure(L, call_repl, 1);
    src = lua_pcall(L, 0, 0, 0);
    if (src != LUA_OK) {
        fprintf(stderr, "etinspect: %s\n", err_text(L, src));
        return 1;
    }
    struct sigaction sa, old_int;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: Ctrl-C interrupts a blocking read or write */
    sigaction(SIGINT, &sa, &old_int);
    lua_sethook(L, check_hook, WATCH_MASK, 0);
    rl_readline_name = "etinspect";
    rl_attempted_completion_function = complete;
    rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,+-*/%^#~[].:";
    if (tty) {
        terminal_locale();
        hist.path = history_path();
        using_history();
        if (hist.path)
            history_load(&hist);
        printf("etinspect %s (Lua 5.4) - .help for help, .quit or Ctrl-D to leave\n",
               ETINSPECT_VERSION);
        if (!no_init)
            run_init(L);
    }
    char *pending = NULL; /* an incomplete statement so far */
    int nomem = 0;        /* the loop ended for want of memory */
    for (;;) {
        g_interrupted = 0;
        fflush(stdout);
        fflush(stderr);
        int interrupted;
        char *line = next_line(&in, pending ? ">> " : "> ", &interrupted);
        if (!line) {
            if (interrupted) { /* Ctrl-C at the prompt */
                free(pending);
                pending = NULL;
                printf("\n");
                continue;
            }
            break; /* end of input */
        }
        if (!pending && line[strspn(line, " \t")] == '.') {
            if (tty)
                history_add(&hist, line);
            int base = lua_gettop(L);
            lua_pushstring(L, line);
            free(line);
            int quit = 0;
            if (repl_call(L, "meta", 1, 1) == 0) {
                const char *r = lua_tostring(L, -1);
                quit = r && strcmp(r, "quit") == 0;
            }
            lua_settop(L, base);
            if (quit)
                break;
            continue;
        }
        /* ?x: help(x), x the value of an expression (? alone: help()) */
        const char *show = "render";
        int help = 0;
        if (!pending && line[strspn(line, " \t")] == '?') {
            help = 1;
            show = "help_text";
        }
        char *code;
        if (help) {
            const char *q = line + strspn(line, " \t") + 1;
            code = strdup(q);
            if (tty && code)
                history_add(&hist, line); /* as typed */
        } else if (pending) {
            size_t n = strlen(pending) + strlen(line) + 2;
            code = malloc(n);
            if (!code) {
                nomem = 1;
                break;
            }
            snprintf(code, n, "%s\n%s", pending, line);
            free(pending);
            pending = NULL;
        } else {
            code = strdup(line);
        }
        free(line);
        if (!code) {
            nomem = 1;
            break;
        }
        int incomplete;
        int base = lua_gettop(L);
        int rc = compile(L, code, &incomplete);
        if (incomplete && help) { /* ?x takes one line */
            fflush(stdout);
            fputs("?: expected an expression on the line (?x shows help(x))\n", stderr);
            lua_settop(L, base);
            free(code);
            continue;
        }
        if (incomplete) {
            lua_settop(L, base);
            pending = code;
            continue;
        }
        if (tty && code[0] && !help)
            history_add(&hist, code);
        free(code);
        if (rc == LUA_OK) {
            run_statement(L, base, show);
        } else {
            fflush(stdout);
            fprintf(stderr, "%s\n", err_text(L, rc));
            lua_settop(L, base);
        }
    }
    free(pending);
    et_linereader_free(&in.r);
    free_matches();
    if (tty)
        printf("\n");
    history_close(&hist);
    lua_sethook(L, NULL, 0, 0);
    sigaction(SIGINT, &old_int, NULL);
    g_L = NULL;
    if (nomem)
        fputs("etinspect: error: out of memory\n", stderr);
    return nomem ? 1 : in.status;
}
