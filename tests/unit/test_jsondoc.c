/*
 * test_jsondoc.c - JSON parsed under a budget into a tape
 * (src/core/format/jsondoc.h): every value kind, iteration, duplicate keys, the
 * node and byte budgets to the exact count, nesting, the errors jansson
 * gave (kept), and line/column positions whatever the chunking.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/jsondoc.h"
#include "tap.h"

static et_jsondoc *parse(const char *s, uint64_t nodes, uint64_t bytes, et_error *err)
{
    et_json_limits lim = {.max_nodes = nodes, .max_bytes = bytes, .hint = "raise it", .scalar_root = true};
    return et_jsondoc_parse(s, strlen(s), "doc", &lim, err);
}

/* The parse of s fails with exactly `msg`. */
static void fails(const char *s, uint64_t nodes, const char *msg, const char *what)
{
    et_error err;
    et_error_clear(&err);
    et_jsondoc *d = parse(s, nodes, 0, &err);
    ok(!d && err.kind == ET_ERR_FORMAT && strcmp(err.msg, msg) == 0, "%s", what);
    if (d || strcmp(err.msg, msg) != 0)
        diag("got: %s", d ? "(parsed)" : err.msg);
    et_jsondoc_free(d);
}

/* The same text fed in chunks of `step` bytes fails with the same message. */
static void fails_chunked(const char *s, size_t step, const char *msg, const char *what)
{
    et_error err;
    et_error_clear(&err);
    et_jsondoc *d = et_jsondoc_new("doc", NULL, &err);
    size_t n = strlen(s);
    int rc = 0;
    for (size_t at = 0; rc == 0 && at < n; at += step)
        rc = et_jsondoc_feed(d, s + at, n - at < step ? n - at : step, &err);
    if (rc == 0)
        rc = et_jsondoc_finish(d, &err);
    ok(rc != 0 && strcmp(err.msg, msg) == 0, "%s", what);
    if (rc == 0 || strcmp(err.msg, msg) != 0)
        diag("got: %s", rc ? err.msg : "(parsed)");
    et_jsondoc_free(d);
}

static void test_values(void)
{
    et_error err;
    const char *text = "{\"a\": [1, -2, 2147483648, -9223372036854775808, 9223372036854775807, "
                       "1.5, -0.0, 1e300, true, false, null, \"x\\u00e9\\n\\\"\", {}, []], "
                       "\"b\": {\"k\": 1, \"k\": 2, \"z\": \"last\"}, \"\": \"empty key\"}";
    et_jsondoc *d = parse(text, 0, 0, &err);
    ok(d != NULL, "a document of every kind parses");
    if (!d) {
        diag("%s", err.msg);
        return;
    }
    et_jref root = et_json_root(d);
    is_int(et_json_type(d, root), ET_JOBJECT, "root: an object");
    is_int((long long)et_json_count(d, root), 3, "root: 3 members");
    et_jref a = et_json_get(d, root, "a");
    is_int((long long)et_json_count(d, a), 14, "a: 14 elements");
    const int64_t ints[] = {1, -2, 2147483648LL, INT64_MIN, INT64_MAX};
    et_jref v = et_json_first(d, a);
    for (size_t i = 0; i < 5; i++, v = et_json_next(d, a, v))
        ok(et_json_type(d, v) == ET_JINT && et_json_int(d, v) == ints[i], "a[%zu]: %lld", i,
           (long long)ints[i]);
    ok(et_json_type(d, v) == ET_JREAL && et_json_real(d, v) == 1.5, "a[5]: 1.5");
    v = et_json_next(d, a, v);
    ok(et_json_type(d, v) == ET_JREAL && et_json_real(d, v) == 0.0, "a[6]: -0.0 is a real");
    v = et_json_next(d, a, v);
    ok(et_json_real(d, v) == 1e300, "a[7]: 1e300");
    v = et_json_next(d, a, v);
    is_str(et_json_kind(d, v), "true", "a[8]: true");
    v = et_json_next(d, a, v);
    is_str(et_json_kind(d, v), "false", "a[9]: false");
    v = et_json_next(d, a, v);
    is_str(et_json_kind(d, v), "null", "a[10]: null");
    v = et_json_next(d, a, v);
    is_str(et_json_str(d, v), "x\xc3\xa9\n\"", "a[11]: escapes decoded");
    is_int((long long)et_json_strlen(d, v), 5, "a[11]: 5 bytes");
    v = et_json_next(d, a, v);
    ok(et_json_type(d, v) == ET_JOBJECT && et_json_count(d, v) == 0 &&
           et_json_first(d, v) == ET_JNONE,
       "a[12]: an empty object, no first member");
    v = et_json_next(d, a, v);
    ok(et_json_type(d, v) == ET_JARRAY && et_json_count(d, v) == 0, "a[13]: an empty list");
    ok(et_json_next(d, a, v) == ET_JNONE, "after a[13]: nothing");

    et_jref b = et_json_get(d, root, "b");
    is_int((long long)et_json_count(d, b), 3, "b: 3 members, the duplicate counted");
    is_int(et_json_int(d, et_json_get(d, b, "k")), 2, "b.k: the last of two wins");
    is_str(et_json_str(d, et_json_get(d, b, "z")), "last", "b.z");
    is_str(et_json_str(d, et_json_get(d, root, "")), "empty key", "an empty key");
    ok(et_json_get(d, b, "nope") == ET_JNONE && et_json_get(d, a, "k") == ET_JNONE,
       "absent key, a list asked for a key: ET_JNONE");
    /* object iteration gives keys in document order */
    const char *keys[3];
    size_t k = 0;
    for (et_jref x = et_json_first(d, b); x != ET_JNONE && k < 3; x = et_json_next(d, b, x))
        keys[k++] = et_json_str(d, x);
    ok(k == 3 && strcmp(keys[0], "k") == 0 && strcmp(keys[1], "k") == 0 &&
           strcmp(keys[2], "z") == 0,
       "object iteration: k, k, z");
    ok(et_json_type(d, ET_JNONE) == ET_JNONE_T && et_json_int(d, ET_JNONE) == 0 &&
           et_json_str(d, ET_JNONE) == NULL && et_json_count(d, ET_JNONE) == 0 &&
           et_json_first(d, ET_JNONE) == ET_JNONE && strcmp(et_json_kind(d, ET_JNONE), "nothing") == 0,
       "every accessor takes ET_JNONE");
    /* 1 + 1 + 1 + 14 + 1 + 1 + 6 + 1 + 1 = the values and keys */
    is_int((long long)et_jsondoc_nodes(d), 27, "27 tape entries (values and keys)");
    size_t sb;
    char *strings = et_jsondoc_take_strings(d, &sb);
    const char *kept = et_json_str(d, et_json_get(d, root, ""));
    ok(strings && kept == NULL, "the strings taken: the document no longer gives them");
    free(strings);
    et_jsondoc_free(d);

    /* scalar roots */
    d = parse(" -12\n", 0, 0, &err);
    ok(d && et_json_int(d, et_json_root(d)) == -12, "a scalar root when allowed");
    et_jsondoc_free(d);
    d = et_jsondoc_parse("7", 1, "doc", NULL, &err);
    ok(!d && strcmp(err.msg, "doc: invalid JSON at line 1, column 1: '[' or '{' expected") == 0,
       "a scalar root refused by default");
    et_jsondoc_free(d);
}

static void test_budgets(void)
{
    et_error err;
    /* {"forward": {"0": [1, 2]}}: 7 values and keys */
    const char *s = "{\"forward\": {\"0\": [1, 2]}}";
    et_jsondoc *d = parse(s, 7, 0, &err);
    ok(d != NULL, "7 nodes under a 7-node budget");
    et_jsondoc_free(d);
    fails(s, 6, "doc: JSON larger than the 6-node budget (raise it)", "7 nodes over a 6-node budget");
    size_t n = 1000001;
    char *big = malloc(2 * n + 2);
    big[0] = '[';
    for (size_t i = 0; i < n; i++) {
        big[1 + 2 * i] = '0';
        big[2 + 2 * i] = i + 1 < n ? ',' : ']';
    }
    big[2 * n + 1] = 0;
    fails(big, 1000000, "doc: JSON larger than the 1,000,000-node budget (raise it)",
          "1,000,002 nodes over a 1,000,000-node budget: the count with separators");
    d = parse(big, 1000002, 0, &err);
    ok(d && et_json_count(d, et_json_root(d)) == n, "... and under a 1,000,002-node budget");
    et_jsondoc_free(d);
    free(big);
    d = parse("[1, 2]", 0, 5, &err);
    ok(!d && strcmp(err.msg, "doc: JSON larger than the 5-byte budget (raise it)") == 0,
       "6 bytes over a 5-byte budget");
    et_jsondoc_free(d);
    d = parse("[1, 2]", 0, 6, &err);
    ok(d != NULL, "6 bytes under a 6-byte budget");
    et_jsondoc_free(d);
    /* strings: at most an eighth of the byte budget */
    d = parse("[\"1234567890\"]", 0, 80, &err);
    ok(d != NULL, "a 10-byte string under an 80-byte budget");
    et_jsondoc_free(d);
    d = parse("[\"12345678901\"]", 0, 80, &err);
    ok(!d && strcmp(err.msg, "doc: a JSON string longer than 10 bytes (an eighth of the 80-byte "
                             "budget; raise it)") == 0,
       "an 11-byte string over an 80-byte budget");
    diag("  %s", d ? "(parsed)" : err.msg);
    et_jsondoc_free(d);
}

/* Text fed in chunks of `step` bytes; returns the document or NULL. */
static et_jsondoc *parse_chunked(const char *s, size_t step, et_error *err)
{
    et_jsondoc *d = et_jsondoc_new("doc", NULL, err);
    size_t n = strlen(s);
    for (size_t at = 0; d && at < n; at += step)
        if (et_jsondoc_feed(d, s + at, n - at < step ? n - at : step, err) != 0) {
            et_jsondoc_free(d);
            return NULL;
        }
    if (d && et_jsondoc_finish(d, err) != 0) {
        et_jsondoc_free(d);
        return NULL;
    }
    return d;
}

/* Tokens cut by chunk ends (held back whole, so that yajl never lexes one
 * twice): the same document whatever the cut. */
static void test_chunks(void)
{
    const char *s = "{\"k\\\"ey\": [\"a\\\\\", -12345.5e-3, true, null, \"\\u00e9\\\\\\\"x\", "
                    "123456789012], \"z\": false}";
    et_error err;
    for (size_t step = 1; step <= 7; step++) {
        et_jsondoc *d = parse_chunked(s, step, &err);
        et_jref root = d ? et_json_root(d) : ET_JNONE;
        et_jref a = d ? et_json_get(d, root, "k\"ey") : ET_JNONE;
        et_jref x = et_json_first(d, a);
        bool good = d && et_json_count(d, a) == 6 && strcmp(et_json_str(d, x), "a\\") == 0;
        x = et_json_next(d, a, x);
        good = good && et_json_real(d, x) == -12345.5e-3;
        x = et_json_next(d, a, x);
        good = good && et_json_type(d, x) == ET_JTRUE;
        x = et_json_next(d, a, et_json_next(d, a, x));
        good = good && strcmp(et_json_str(d, x), "\xc3\xa9\\\"x") == 0;
        x = et_json_next(d, a, x);
        good = good && et_json_int(d, x) == 123456789012 &&
               et_json_type(d, et_json_get(d, root, "z")) == ET_JFALSE;
        ok(good, "fed %zu byte(s) at a time: strings with escaped quotes and backslashes, "
                 "numbers and literals cut anywhere",
           step);
        if (!d)
            diag("%s", err.msg);
        et_jsondoc_free(d);
    }
    /* a long string fed in small chunks */
    size_t n = 1 << 20;
    char *big = malloc(n + 5);
    big[0] = '[';
    big[1] = '"';
    memset(big + 2, 'x', n);
    strcpy(big + 2 + n, "\"]");
    et_jsondoc *d = parse_chunked(big, 4096, &err);
    ok(d && et_json_strlen(d, et_json_first(d, et_json_root(d))) == n,
       "a 1 MiB string fed 4 KiB at a time: whole");
    et_jsondoc_free(d);
    free(big);
}

static void test_errors(void)
{
    fails("{\"a\": [1,,2]}", 0,
          "doc: invalid JSON at line 1, column 10: unallowed token at this point in JSON text",
          "a syntax error: line and column of the offending byte");
    fails("{\n  \"a\": }", 0,
          "doc: invalid JSON at line 2, column 8: unallowed token at this point in JSON text",
          "line 2");
    fails("[\"\xc3\xa9\", x]", 0, "doc: invalid JSON at line 1, column 7: invalid char in json text",
          "columns count characters, not bytes");
    fails("", 0, "doc: invalid JSON at line 1, column 0: premature EOF", "empty text");
    fails("{\"graph_module\": ", 0, "doc: invalid JSON at line 1, column 17: premature EOF",
          "cut short: the position of the last byte");
    fails("[1] x", 0, "doc: invalid JSON at line 1, column 5: trailing garbage", "trailing garbage");
    fails("[99999999999999999999]", 0, "doc: invalid JSON at line 1, column 21: too big integer",
          "an integer beyond 64 bits");
    fails("[-9223372036854775809]", 0, "doc: invalid JSON at line 1, column 21: too big integer",
          "an integer below INT64_MIN");
    fails("[1e999]", 0, "doc: invalid JSON at line 1, column 6: real number overflow",
          "a real beyond double");
    fails("[\"a\\u0000b\"]", 0,
          "doc: invalid JSON at line 1, column 11: \\u0000 is not allowed in a string", "\\u0000");
    fails("[NaN]", 0, "doc: invalid JSON at line 1, column 2: invalid char in json text", "NaN");
    fails("[\"\xff\"]", 0, "doc: invalid JSON at line 1, column 3: invalid bytes in UTF8 string",
          "invalid UTF-8");
    fails("// c\n[]", 0,
          "doc: invalid JSON at line 1, column 1: probable comment found in input text, comments "
          "are not enabled",
          "no comments");

    /* nesting: 2048 levels parse, 2049 do not */
    size_t depth = 2049;
    char *deep = malloc(2 * depth + 1);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = 0;
    fails(deep, 0, "doc: invalid JSON at line 1, column 2049: maximum parsing depth reached",
          "2049 levels refused");
    et_error err;
    deep[2 * depth - 1] = 0; /* 2048 '[' after the first, 2048 ']' */
    et_jsondoc *d = parse(deep + 1, 0, 0, &err);
    ok(d != NULL, "2048 levels parse");
    et_jsondoc_free(d);
    free(deep);

    /* the same positions whatever the chunking */
    const char *s = "{\n \"a\": [1,,2]}";
    const char *msg = "doc: invalid JSON at line 2, column 10: unallowed token at this point in "
                      "JSON text";
    fails_chunked(s, 1, msg, "fed byte by byte: the same line and column");
    fails_chunked(s, 3, msg, "fed 3 bytes at a time: the same line and column");
    fails_chunked("{\"graph_module\": ", 1, "doc: invalid JSON at line 1, column 17: premature EOF",
                  "cut short, fed byte by byte");
    fails_chunked("[\"\xc3\xa9\", x]", 1,
                  "doc: invalid JSON at line 1, column 7: invalid char in json text",
                  "a character split across chunks counts once");
}

int main(void)
{
    test_values();
    test_budgets();
    test_errors();
    test_chunks();
    return done_testing();
}
