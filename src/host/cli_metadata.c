/* cli_metadata.c - the command line's --delegate_metadata_parser; see
 * cli_metadata.h. */
#include "cli_metadata.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "base/shown.h"
#include "host.h"

/* Print "etinspect: error: MSG" (control characters escaped). */
static void print_error(const char *m)
{
    fputs("etinspect: error: ", stderr);
    et_fput_shown(stderr, m, strlen(m));
    fputc('\n', stderr);
}

/* See cli_metadata.h. */
int et_cli_script_failure(lua_State *L)
{
    /* etinspect.scripts' usage and input errors, or any other */
    int top = lua_gettop(L), status = 1;
    const char *m = NULL;
    if (lua_type(L, -1) == LUA_TTABLE) {
        if (lua_getfield(L, -1, "usage") == LUA_TSTRING)
            status = 2, m = lua_tostring(L, -1);
        else if (lua_getfield(L, -2, "input") == LUA_TSTRING)
            m = lua_tostring(L, -1);
    } else {
        m = lua_tostring(L, -1);
    }
    print_error(m ? m : "out of memory");
    lua_settop(L, top);
    return status;
}

/* The wrapper around the user's parser: state.ok is set when it returned
 * a table, so that a failure (warned by the Inspector, which keeps the raw
 * metadata) gives null, not the raw bytes. */
static const char wrap_chunk[] =
    "local fn, state = ...\n"
    "return function(raw, ev)\n"
    "  local ok, r = pcall(fn, raw, ev)\n" /* the parser's message as it is */
    "  if not ok then error(r, 0) end\n"
    "  state.ok = type(r) == 'table'\n"
    "  return r\n"
    "end\n";

/* Protected: 1 spec, 2 plugin or nil.  Sets the global etinspect (which
 * a plugin registers in), runs etinspect.scripts.load_plugins{plugin} and
 * returns etinspect.scripts.find_parser(spec). */
void et_cli_scripts_with_plugins(lua_State *L, int plugin)
{
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect");
    lua_call(L, 1, 1);
    lua_setglobal(L, "etinspect");
    lua_getglobal(L, "require");
    lua_pushliteral(L, "etinspect.scripts");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "load_plugins");
    lua_createtable(L, 1, 0);
    if (!lua_isnil(L, plugin)) {
        lua_pushvalue(L, plugin);
        lua_rawseti(L, -2, 1);
    }
    lua_call(L, 1, 0);
}

static int find_p(lua_State *L)
{
    et_cli_scripts_with_plugins(L, 2);
    lua_getfield(L, -1, "find_parser");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

int et_cli_md_find(et_cli_md *md, const char *spec, const char *plugin)
{
    lua_State *L = et_host_lua();
    if (!L) {
        print_error("out of memory");
        return 1;
    }
    int top = lua_gettop(L);
    lua_pushcfunction(L, find_p);
    lua_pushstring(L, spec);
    if (plugin)
        lua_pushstring(L, plugin);
    else
        lua_pushnil(L);
    int rc = lua_pcall(L, 2, 1, 0);
    if (rc == LUA_OK) {
        /* wrap it (wrap_chunk) */
        rc = luaL_loadbufferx(L, wrap_chunk, sizeof wrap_chunk - 1, "=[etinspect]", "t");
        if (rc == LUA_OK) {
            lua_pushvalue(L, -2);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            md->state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
            rc = lua_pcall(L, 2, 1, 0);
        }
    }
    if (rc != LUA_OK) {
        int status = et_cli_script_failure(L);
        lua_settop(L, top);
        return status;
    }
    md->L = L;
    md->parser_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    md->spec = spec;
    lua_settop(L, top);
    return 0;
}

void et_cli_md_push_parser(const et_cli_md *md)
{
    if (md->parser_ref)
        lua_rawgeti(md->L, LUA_REGISTRYINDEX, md->parser_ref);
    else
        lua_pushnil(md->L);
}

/* Every delegated event's result as JSON text: a table [block][event] ->
 * text (absent: not delegated, or the parser failed).  The parser's
 * failures are warned once: the first event's warning, then how many more
 * events it failed on; other warnings go where they went. */
static const char collect_chunk[] =
    "local insp, state, spec = ...\n"
    "local etinspect = require('etinspect')\n"
    "local to_json = require('etinspect.scripts').metadata_json\n"
    "local shown = etinspect._core.shown\n"
    "local failed = 0\n"
    "etinspect.on_warning(function(m)\n"
    "  if m:find('^delegate metadata parser') then\n"
    "    failed = failed + 1\n"
    "    if failed > 1 then return end\n"
    "    m = m:gsub('; the raw metadata is kept$', '; its delegate_debug_metadatas are null')\n"
    "  end\n"
    "  io.stderr:write('etinspect: warning: ', shown(m), '\\n')\n"
    "end)\n"
    "local out = {}\n"
    "local ok, err = pcall(function()\n"
    "  for bi, blk in ipairs(insp.event_blocks) do\n"
    "    local t = {}\n"
    "    for ei, ev in ipairs(blk.events) do\n"
    "      if ev.is_delegated_op then\n"
    "        state.ok = false\n"
    "        local v = ev.delegate_debug_metadatas\n"
    "        if state.ok then\n"
    "          local good, s = pcall(to_json, v)\n"
    "          if not good then\n"
    "            error(string.format(\"--delegate_metadata_parser %s: the metadata of event '%s' \"\n"
    "              .. '(event_blocks[%d].events[%d]) %s', spec, ev.name, bi, ei, s), 0)\n"
    "          end\n"
    "          t[ei] = s\n"
    "        end\n"
    "      end\n"
    "    end\n"
    "    out[bi] = t\n"
    "  end\n"
    "end)\n"
    "etinspect.on_warning(nil)\n"
    "if not ok then error(err, 0) end\n"
    "if failed > 1 then\n"
    "  io.stderr:write('etinspect: warning: --delegate_metadata_parser ', shown(spec), ': it failed on ',\n"
    "    failed - 1, ' more delegated event', failed > 2 and 's' or '', ' too (null as well)\\n')\n"
    "end\n"
    "return out\n";

int et_cli_md_collect(et_cli_md *md, const et_inspector *insp)
{
    lua_State *L = md->L;
    md->ud_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    bool any = false;
    for (size_t b = 0; b < insp->n_blocks && !any; b++)
        for (size_t e = 0; e < insp->blocks[b].n_events && !any; e++)
            any = insp->blocks[b].events[e].is_delegated_op;
    if (!any) { /* nothing typed is silently ignored */
        fputs("etinspect: warning: --delegate_metadata_parser ", stderr);
        et_fput_shown(stderr, md->spec, strlen(md->spec));
        fputs(": the dump has no delegated events, so the parser is never called\n", stderr);
        return 0;
    }
    int top = lua_gettop(L);
    int rc = luaL_loadbufferx(L, collect_chunk, sizeof collect_chunk - 1, "=[etinspect]", "t");
    if (rc == LUA_OK) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, md->ud_ref);
        lua_rawgeti(L, LUA_REGISTRYINDEX, md->state_ref);
        lua_pushstring(L, md->spec);
        rc = lua_pcall(L, 3, 1, 0);
    }
    if (rc != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        print_error(m ? m : "out of memory");
        lua_settop(L, top);
        return 1;
    }
    int out = lua_gettop(L);
    md->text = calloc(insp->n_blocks ? insp->n_blocks : 1, sizeof *md->text);
    md->n_events = calloc(insp->n_blocks ? insp->n_blocks : 1, sizeof *md->n_events);
    if (!md->text || !md->n_events)
        goto nomem;
    md->n_blocks = insp->n_blocks;
    for (size_t b = 0; b < insp->n_blocks; b++) {
        if (lua_rawgeti(L, out, (lua_Integer)b + 1) != LUA_TTABLE) {
            lua_pop(L, 1);
            continue;
        }
        size_t n = insp->blocks[b].n_events;
        for (size_t e = 0; e < n; e++) {
            if (lua_rawgeti(L, -1, (lua_Integer)e + 1) == LUA_TSTRING) {
                if (!md->text[b] && !(md->text[b] = calloc(n, sizeof **md->text)))
                    goto nomem;
                md->n_events[b] = n;
                size_t len;
                const char *s = lua_tolstring(L, -1, &len);
                if (!(md->text[b][e] = malloc(len + 1)))
                    goto nomem;
                memcpy(md->text[b][e], s, len + 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_settop(L, top);
    return 0;
nomem:
    lua_settop(L, top);
    print_error("out of memory");
    return 1;
}

const char *et_cli_md_text(void *ud, size_t block, size_t event)
{
    const et_cli_md *md = ud;
    if (!md->text || block >= md->n_blocks || !md->text[block] || event >= md->n_events[block])
        return NULL;
    return md->text[block][event];
}

char *et_cli_md_trace(void *ud, size_t block, size_t event, size_t run)
{
    (void)run;
    const char *t = et_cli_md_text(ud, block, event);
    char *copy = t ? malloc(strlen(t) + 1) : NULL;
    if (copy)
        memcpy(copy, t, strlen(t) + 1);
    return copy;
}

int et_cli_md_push_inspector(const et_cli_md *md)
{
    if (!md->ud_ref)
        return 0;
    lua_rawgeti(md->L, LUA_REGISTRYINDEX, md->ud_ref);
    return 1;
}

/* Protected: insp:close() of the Inspector at 1. */
static int close_p(lua_State *L)
{
    lua_getfield(L, 1, "close");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 0);
    return 0;
}

void et_cli_md_free(et_cli_md *md)
{
    for (size_t b = 0; md->text && b < md->n_blocks; b++) {
        for (size_t e = 0; md->text[b] && e < md->n_events[b]; e++)
            free(md->text[b][e]);
        free(md->text[b]);
    }
    free(md->text);
    free(md->n_events);
    md->text = NULL;
    md->n_events = NULL;
    lua_State *L = md->L;
    if (!L)
        return;
    if (md->ud_ref) {
        lua_pushcfunction(L, close_p);
        lua_rawgeti(L, LUA_REGISTRYINDEX, md->ud_ref);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK)
            lua_pop(L, 1);
        luaL_unref(L, LUA_REGISTRYINDEX, md->ud_ref);
    }
    if (md->parser_ref)
        luaL_unref(L, LUA_REGISTRYINDEX, md->parser_ref);
    if (md->state_ref)
        luaL_unref(L, LUA_REGISTRYINDEX, md->state_ref);
    md->ud_ref = md->parser_ref = md->state_ref = 0;
}
