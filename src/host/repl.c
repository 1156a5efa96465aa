/*
 * repl.c - the interactive shell (libedit).
 *
 *  - line editing and history (libedit); the history file is
 *    $XDG_STATE_HOME/etinspect/history, else ~/.local/state/etinspect/history,
 *    read and written only when standard input is a terminal;
 *  - tab completion of globals, and of the fields and methods of tables and
 *    userdata after `name.` or `name:` (dotted names are looked up, never
 *    evaluated, so completion has no side effects);
 *  - a bare expression is printed with a pretty-printer (tables up to a
 *    depth, userdata through __tostring, Frames as tables in the current
 *    .mode);
 *  - an incomplete statement continues on the next line (">> ");
 *  - Ctrl-C while a statement runs interrupts it (the shell stays); at the
 *    prompt it discards the line;
 *  - an error prints its traceback and the shell goes on;
 *  - meta commands: .help, .open FILE (binds `insp`), .mode box|plain|markdown|tsv,
 *    .quit (also Ctrl-D).
 */
#include "repl.h"

#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include "lua_host.h"
#include "version.h"

static lua_State *g_L;             /* the state being run (for the signal hook) */
static volatile sig_atomic_t g_interrupted;

/* ---- Ctrl-C ---- */

static void stop_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted!");
}

static void on_sigint(int sig)
{
    (void)sig;
    g_interrupted = 1;
    if (g_L) /* inside a statement: stop it at the next hook point */
        lua_sethook(g_L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static void set_sigint(int running, lua_State *L)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: interrupt a blocking read at the prompt */
    g_L = running ? L : NULL;
    sigaction(SIGINT, &sa, NULL);
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

/* ---- output mode and pretty-printing (in Lua) ---- */

static const char pretty_lua[] =
    "local mode = ...\n"
    "local Frame = require('etinspect').Frame\n"
    "local function keys_of(t)\n"
    "  local ks = {}\n"
    "  for k in pairs(t) do ks[#ks + 1] = k end\n"
    "  table.sort(ks, function(a, b)\n"
    "    local ta, tb = type(a), type(b)\n"
    "    if ta ~= tb then return ta < tb end\n"
    "    if ta == 'number' or ta == 'string' then return a < b end\n"
    "    return tostring(a) < tostring(b) end)\n"
    "  return ks\n"
    "end\n"
    "local function pp(v, depth, seen)\n"
    "  local t = type(v)\n"
    "  if t == 'string' then return string.format('%q', v) end\n"
    "  if t ~= 'table' then return tostring(v) end\n"
    "  if Frame.is_frame(v) then return v:render(mode.style) end\n"
    "  if getmetatable(v) and getmetatable(v).__tostring then return tostring(v) end\n"
    "  if seen[v] then return '<cycle>' end\n"
    "  if depth > 3 then return '{...}' end\n"
    "  seen[v] = true\n"
    "  local parts, n = {}, #v\n"
    "  for i = 1, n do parts[#parts + 1] = pp(v[i], depth + 1, seen) end\n"
    "  for _, k in ipairs(keys_of(v)) do\n"
    "    if not (math.type(k) == 'integer' and k >= 1 and k <= n) then\n"
    "      local ks = (type(k) == 'string' and k:match('^[%a_][%w_]*$')) and k or '[' .. pp(k, depth + 1, seen) .. ']'\n"
    "      parts[#parts + 1] = ks .. ' = ' .. pp(v[k], depth + 1, seen)\n"
    "    end\n"
    "    if #parts > 200 then parts[#parts + 1] = '...'; break end\n"
    "  end\n"
    "  seen[v] = nil\n"
    "  local s = '{' .. table.concat(parts, ', ') .. '}'\n"
    "  if #s > 100 then s = '{\\n  ' .. table.concat(parts, ',\\n  ') .. '\\n}' end\n"
    "  return s\n"
    "end\n"
    "return function(...)\n"
    "  local out = {}\n"
    "  for i = 1, select('#', ...) do out[i] = pp((select(i, ...)), 0, {}) end\n"
    "  return table.concat(out, '\\t')\n"
    "end\n";

/* Registry keys of the REPL's Lua helpers. */
#define MODE_KEY "etinspect.repl.mode"
#define PRETTY_KEY "etinspect.repl.pretty"

static int setup_helpers(lua_State *L)
{
    lua_newtable(L);
    lua_pushliteral(L, "box");
    lua_setfield(L, -2, "style");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, MODE_KEY);
    if (luaL_loadbuffer(L, pretty_lua, sizeof pretty_lua - 1, "=[repl]") != LUA_OK)
        return -1;
    lua_insert(L, -2);
    if (et_host_pcall(L, 1, 1) != LUA_OK)
        return -1;
    lua_setfield(L, LUA_REGISTRYINDEX, PRETTY_KEY);
    return 0;
}

static void print_results(lua_State *L, int base)
{
    int n = lua_gettop(L) - base;
    if (n <= 0)
        return;
    lua_getfield(L, LUA_REGISTRYINDEX, PRETTY_KEY);
    lua_insert(L, base + 1);
    if (et_host_pcall(L, n, 1) == LUA_OK) {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        fwrite(s, 1, len, stdout);
        if (len == 0 || s[len - 1] != '\n')
            fputc('\n', stdout);
    } else {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
    }
    lua_settop(L, base);
    fflush(stdout);
}

/* ---- completion ---- */

/* obj[key], called protected by collect(). */
static int index_fn(lua_State *L)
{
    lua_gettable(L, 1);
    return 1;
}

/* Collect candidates for `text` (the word under the cursor) into a Lua
 * table left on the stack. */
static void collect(lua_State *L, const char *text)
{
    lua_newtable(L);
    int out = lua_gettop(L);
    const char *sep = NULL;
    for (const char *p = text; *p; p++)
        if (*p == '.' || *p == ':')
            sep = p;
    lua_Integer n = 0;
    if (!sep) {
        lua_pushglobaltable(L);
    } else {
        /* look up the dotted prefix from the globals (no evaluation) */
        lua_pushglobaltable(L);
        const char *p = text;
        while (p < sep) {
            const char *q = p;
            while (q < sep && *q != '.' && *q != ':')
                q++;
            lua_pushlstring(L, p, (size_t)(q - p));
            int t = lua_type(L, -2);
            if (t == LUA_TTABLE)
                lua_rawget(L, -2);
            else if (t == LUA_TUSERDATA) {
                /* a field of a userdata: through __index, protected (an
                 * unknown field raises) */
                lua_pushcfunction(L, index_fn);
                lua_insert(L, -2);
                lua_pushvalue(L, -3);
                lua_insert(L, -2);
                if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
                    lua_pop(L, 1);
                    lua_pushnil(L);
                }
            } else {
                lua_pop(L, 1);
                lua_pushnil(L);
            }
            lua_remove(L, -2);
            p = q + 1;
        }
    }
    int obj = lua_gettop(L);
    size_t plen = sep ? (size_t)(sep - text + 1) : 0;
    const char *word = text + plen;
    size_t wlen = strlen(word);
    /* keys of a table, or the methods and fields of a userdata */
    int sources[3] = {0, 0, 0};
    if (lua_type(L, obj) == LUA_TTABLE) {
        sources[0] = obj;
    }
    if (lua_getmetatable(L, obj)) {
        int mt = lua_gettop(L);
        lua_getfield(L, mt, "__methods");
        sources[1] = lua_gettop(L);
        lua_getfield(L, mt, "__getters");
        sources[2] = lua_gettop(L);
        if (lua_type(L, obj) == LUA_TTABLE)
            sources[1] = sources[2] = 0;
    }
    for (int s = 0; s < 3; s++) {
        if (!sources[s] || lua_type(L, sources[s]) != LUA_TTABLE)
            continue;
        lua_pushnil(L);
        while (lua_next(L, sources[s])) {
            lua_pop(L, 1);
            if (lua_type(L, -1) == LUA_TSTRING) {
                const char *k = lua_tostring(L, -1);
                if (strncmp(k, word, wlen) == 0 && k[0] != '_') {
                    lua_pushlstring(L, text, plen);
                    lua_pushvalue(L, -2);
                    lua_concat(L, 2);
                    lua_rawseti(L, out, ++n);
                }
            }
        }
    }
    lua_settop(L, out);
}

static lua_State *g_complete_L;

static char *complete_generator(const char *text, int state)
{
    static lua_Integer i;
    lua_State *L = g_complete_L;
    if (state == 0) {
        i = 0;
        lua_settop(L, 0);
        collect(L, text);
    }
    if (lua_gettop(L) < 1 || lua_type(L, 1) != LUA_TTABLE)
        return NULL;
    if (lua_rawgeti(L, 1, ++i) != LUA_TSTRING) {
        lua_pop(L, 1);
        return NULL;
    }
    char *s = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    return s;
}

static char **complete(const char *text, int start, int end)
{
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1;
    rl_completion_append_character = '\0'; /* "insp." must not become "insp. " */
    return rl_completion_matches(text, complete_generator);
}

/* ---- meta commands ---- */

static int meta(lua_State *L, const char *line)
{
    while (*line == ' ')
        line++;
    if (strncmp(line, ".quit", 5) == 0 || strncmp(line, ".exit", 5) == 0)
        return 1;
    if (strncmp(line, ".help", 5) == 0) {
        printf("Lua 5.4 with etinspect loaded as `etinspect`.\n"
               "  .open FILE      open an ETDump as `insp` (insp = etinspect.Inspector{...})\n"
               "  .mode STYLE     how frames print: box (default), plain, markdown, tsv\n"
               "  .help           this text\n"
               "  .quit           leave (or Ctrl-D)\n"
               "Expressions print their value; Tab completes names and fields;\n"
               "Ctrl-C stops a running statement.\n");
        return 0;
    }
    if (strncmp(line, ".mode", 5) == 0) {
        const char *m = line + 5;
        while (*m == ' ')
            m++;
        if (strcmp(m, "box") && strcmp(m, "plain") && strcmp(m, "markdown") && strcmp(m, "tsv")) {
            fprintf(stderr, ".mode: expected box, plain, markdown or tsv\n");
            return 0;
        }
        lua_getfield(L, LUA_REGISTRYINDEX, MODE_KEY);
        lua_pushstring(L, m);
        lua_setfield(L, -2, "style");
        lua_pop(L, 1);
        return 0;
    }
    if (strncmp(line, ".open", 5) == 0) {
        const char *f = line + 5;
        while (*f == ' ')
            f++;
        if (!*f) {
            fprintf(stderr, ".open: expected a file name\n");
            return 0;
        }
        lua_getglobal(L, "etinspect");
        lua_getfield(L, -1, "Inspector");
        lua_remove(L, -2);
        lua_newtable(L);
        lua_pushstring(L, f);
        lua_setfield(L, -2, "etdump_path");
        if (et_host_pcall(L, 1, 1) != LUA_OK) {
            fprintf(stderr, "%s\n", lua_tostring(L, -1));
            lua_pop(L, 1);
            return 0;
        }
        lua_pushvalue(L, -1);
        lua_setglobal(L, "insp");
        printf("insp = %s\n", luaL_tolstring(L, -1, NULL));
        lua_pop(L, 2);
        return 0;
    }
    fprintf(stderr, "unknown command '%s' (try .help)\n", line);
    return 0;
}

/* ---- the loop ---- */

/* Compile `code` as an expression ("return CODE") or a statement. Returns
 * LUA_OK with the chunk on the stack, LUA_ERRSYNTAX with "incomplete"
 * when more input is needed, or another status with the message. */
static int compile(lua_State *L, const char *code, int *incomplete)
{
    *incomplete = 0;
    const char *ret = lua_pushfstring(L, "return %s;", code);
    int rc = luaL_loadbuffer(L, ret, strlen(ret), "=stdin");
    lua_remove(L, -2);
    if (rc == LUA_OK)
        return rc;
    lua_pop(L, 1);
    rc = luaL_loadbuffer(L, code, strlen(code), "=stdin");
    if (rc == LUA_ERRSYNTAX) {
        size_t len;
        const char *m = lua_tolstring(L, -1, &len);
        if (len >= 5 && strcmp(m + len - 5, "<eof>") == 0)
            *incomplete = 1;
    }
    return rc;
}

int et_repl_run(lua_State *L)
{
    int tty = isatty(STDIN_FILENO);
    char *hist = NULL;
    /* etinspect is at hand in the shell */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect");
    if (et_host_pcall(L, 1, 1) != LUA_OK) {
        fprintf(stderr, "etinspect: %s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_setglobal(L, "etinspect");
    if (setup_helpers(L) != 0) {
        fprintf(stderr, "etinspect: %s\n", lua_tostring(L, -1));
        return 1;
    }
    g_complete_L = lua_newthread(L);
    luaL_ref(L, LUA_REGISTRYINDEX); /* keep the completion thread alive */
    rl_readline_name = "etinspect";
    rl_attempted_completion_function = complete;
    rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,+-*/%^#~[]";
    if (tty) {
        hist = history_path();
        using_history();
        if (hist)
            read_history(hist);
        printf("etinspect %s (Lua 5.4) - .help for help, .quit or Ctrl-D to leave\n",
               ETINSPECT_VERSION);
    }
    char *pending = NULL; /* an incomplete statement so far */
    for (;;) {
        set_sigint(0, L);
        g_interrupted = 0;
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
        if (!pending && line[0] == '.') {
            if (tty && line[0])
                add_history(line);
            int quit = meta(L, line);
            free(line);
            fflush(stdout);
            if (quit)
                break;
            continue;
        }
        char *code;
        if (pending) {
            size_t n = strlen(pending) + strlen(line) + 2;
            code = malloc(n);
            if (!code)
                break;
            snprintf(code, n, "%s\n%s", pending, line);
            free(pending);
            pending = NULL;
        } else {
            code = strdup(line);
        }
        free(line);
        if (!code)
            break;
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
            set_sigint(1, L);
            rc = et_host_pcall(L, 0, LUA_MULTRET);
            set_sigint(0, L);
            lua_sethook(L, NULL, 0, 0);
        }
        if (rc != LUA_OK) {
            fprintf(stderr, "%s\n", lua_tostring(L, -1));
            lua_settop(L, base);
        } else {
            print_results(L, base);
        }
        fflush(stdout);
        fflush(stderr);
    }
    free(pending);
    if (tty) {
        printf("\n");
        if (hist)
            write_history(hist);
    }
    free(hist);
    signal(SIGINT, SIG_DFL);
    return 0;
}
