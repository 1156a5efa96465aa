/*
 * repl.c - the interactive shell (libedit); its Lua half is
 * lua/etinspect/repl.lua (meta commands, display, completion).
 *
 *  - line editing and history (libedit); the history file is
 *    $XDG_STATE_HOME/etinspect/history, else ~/.local/state/etinspect/history,
 *    read and written only when standard input is a terminal;
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
 *    process, whatever it does to the globals or the registry.
 */
#include "repl.h"

#include <dirent.h>
#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include "host.h"
#include "base/version.h"

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
    lua_createtable(L, 0, 3);
    lua_pushcfunction(L, et_host_input_kind);
    lua_setfield(L, -2, "input_kind");
    lua_pushcfunction(L, et_host_assign_inputs);
    lua_setfield(L, -2, "assign_inputs");
    lua_pushcfunction(L, list_dir);
    lua_setfield(L, -2, "list_dir");
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

/* Protected: repl.render(values...) -> text, repl.state.pager */
static int render(lua_State *L)
{
    int n = lua_gettop(L);
    push_repl(L);
    lua_getfield(L, -1, "render");
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

/* Show text: through the pager when it is on, the output a terminal that
 * can page, and the text does not fit on one screen; else written out in
 * pieces, stopping at Ctrl-C. */
static void emit(const char *s, size_t n, int pager)
{
    fflush(stdout);
    int rows, cols;
    const char *term = getenv("TERM"), *prog;
    if (pager && isatty(STDOUT_FILENO) && term && strcmp(term, "dumb") != 0 &&
        et_host_terminal_size(&rows, &cols) && too_big(s, n, rows, cols) && (prog = pager_program())) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "export LESS=\"${LESS-FRX}\"; exec %s", prog);
        FILE *p = popen(cmd, "w");
        if (p) {
            struct sigaction ign, old;
            memset(&ign, 0, sizeof ign);
            ign.sa_handler = SIG_IGN;
            sigaction(SIGPIPE, &ign, &old);
            write_all(fileno(p), s, n);
            pclose(p);
            sigaction(SIGPIPE, &old, NULL);
            return;
        }
    }
    if (write_all(STDOUT_FILENO, s, n) != 0 && g_interrupted)
        fputs("\ninterrupted!\n", stderr);
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
 * results. */
static void run_statement(lua_State *L, int base)
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
    if (rc == LUA_OK && n > 0) {
        /* render the results, still interruptible */
        lua_pushcfunction(L, render);
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
    } else if (n > 0) {
        size_t len;
        const char *s = lua_tolstring(L, -2, &len);
        if (s)
            emit(s, len, lua_toboolean(L, -1));
    }
    lua_settop(L, base);
    lua_gc(L, LUA_GCSTEP, 0);
}

int et_repl_run(lua_State *L)
{
    int tty = isatty(STDIN_FILENO);
    char *hist = NULL;
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
        hist = history_path();
        using_history();
        if (hist)
            read_history(hist);
        printf("etinspect %s (Lua 5.4) - .help for help, .quit or Ctrl-D to leave\n",
               ETINSPECT_VERSION);
    }
    char *pending = NULL; /* an incomplete statement so far */
    int nomem = 0;        /* the loop ended for want of memory */
    for (;;) {
        g_interrupted = 0;
        fflush(stdout);
        fflush(stderr);
        char *line = readline(tty ? (pending ? ">> " : "> ") : "");
        if (!line) {
            if (g_interrupted || errno == EINTR) { /* Ctrl-C at the prompt */
                errno = 0;
                free(pending);
                pending = NULL;
                printf("\n");
                continue;
            }
            break; /* end of input */
        }
        if (!pending && line[strspn(line, " \t")] == '.') {
            if (tty)
                add_history(line);
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
        char *code;
        if (pending) {
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
        if (incomplete) {
            lua_settop(L, base);
            pending = code;
            continue;
        }
        if (tty && code[0])
            add_history(code);
        free(code);
        if (rc == LUA_OK) {
            run_statement(L, base);
        } else {
            fflush(stdout);
            fprintf(stderr, "%s\n", err_text(L, rc));
            lua_settop(L, base);
        }
    }
    free(pending);
    free_matches();
    if (tty) {
        printf("\n");
        if (hist)
            write_history(hist);
    }
    free(hist);
    lua_sethook(L, NULL, 0, 0);
    sigaction(SIGINT, &old_int, NULL);
    g_L = NULL;
    if (nomem)
        fputs("etinspect: error: out of memory\n", stderr);
    return nomem;
}
