# etinspect - build, test, fuzz and benchmark.
#
#   make               build build/etinspect
#   make demo          build the sample ETDump and run etinspect on it
#   make check         the layering, a short slice of every fuzz target, then
#                      the unit and end-to-end tests, then again under
#                      ASan+UBSan
#   make layers        check the layering of src/ (includes and symbols)
#   make audit         list the public functions no other object uses
#   make bench         issue 15's table on large.etdp as ratios to the floor
#                      (tests/tools/floor), the scaling over the corpus, the
#                      scaling curve over synthetic dumps (BENCH_CURVE=long:
#                      up to 30M events), a legacy dump, a 20,000-node
#                      ETRecord loaded and linked
#   make bench-frame   the Frame's rows alone (issue 24): verbs beside pandas,
#                      the raw-event frame, the fleet pipeline
#   make fuzz          run the libFuzzer targets (FUZZ_SECONDS each, default 600)
#                      and print executions and coverage per target
#   make fuzz-check    a FUZZ_SLICE-second slice (default 20) of each target
#   make man           the man pages etinspect(1), etinspect-lua(3) (scdoc)
#   make html          the Markdown docs as HTML (cmark-gfm)
#   make install       install into $(DESTDIR)$(PREFIX) (default /usr/local):
#                      program, Lua module, man pages, bash completion, docs
#   make deb           the Debian packages etinspect and lua-etinspect, built
#                      in a temporary copy (dpkg-buildpackage), into build/deb,
#                      checked by lintian and run from a scratch root
#   make clean
#
# Tests and benchmarks look for the shared corpus in SHARED (default
# ../shared beside the checkout) and skip what needs it when it is absent.

CC      ?= cc
PREFIX  ?= /usr/local
SHARED  ?= $(abspath ../shared)
FLATC   ?= flatc
FUZZ_SECONDS ?= 600

PKG_CONFIG ?= pkg-config
LUA_PKG  ?= lua5.4
LUA_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LUA_PKG) 2>/dev/null)
LUA_LIBS   := $(shell $(PKG_CONFIG) --libs $(LUA_PKG) 2>/dev/null)
# the host links Lua statically when the archive is there (no PLT on every
# Lua API call); -Wl,-E keeps its symbols visible to C modules it loads
LUA_STATIC := $(wildcard $(shell $(PKG_CONFIG) --variable=libdir $(LUA_PKG) 2>/dev/null)/liblua5.4.a)
HOST_LUA_LIBS := $(if $(LUA_STATIC),$(LUA_STATIC) -ldl,$(LUA_LIBS))
EDIT_CFLAGS := $(shell $(PKG_CONFIG) --cflags libedit 2>/dev/null)
EDIT_LIBS   := $(shell $(PKG_CONFIG) --libs libedit 2>/dev/null)

WARN     = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS += -Isrc/core -Isrc -D_POSIX_C_SOURCE=200809L $(LUA_CFLAGS) $(EDIT_CFLAGS)
CFLAGS  ?= -O2 -g
# the core reads ETRecords (ZIP archives of JSON) with libzip and yajl; the Lua
# binding decodes JSON for scripts with jansson
ZIP_LIBS := $(or $(shell $(PKG_CONFIG) --libs libzip 2>/dev/null),-lzip)
# shortest float digits from libdouble-conversion, behind one C++ shim
# (src/core/base/dtoa.cc, the only C++ file); threads for the model's builder
CXX     ?= c++
CXXFLAGS_SHIM = -std=c++17 -Wall -Wextra -Werror -fno-exceptions -fno-rtti
CORE_LIBS = $(ZIP_LIBS) -lyajl -ljansson -lsqlite3 -lzstd -lxxhash -ldouble-conversion -lm -pthread
LDLIBS  += $(CORE_LIBS)
SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

B = build
CORE_SRC = $(wildcard src/core/*/*.c)
CORE_CXX = $(wildcard src/core/*/*.cc)
LUA_SRC  = $(wildcard src/lua/*.c)
LUA_LIB_FILES = $(sort $(wildcard lua/etinspect/*.lua lua/etinspect/scripts/*.lua))
# Lua modules the build generates (embedded with the library)
GEN_LUA_FILES = $(B)/gen/lua/etinspect/html_dagre.lua $(B)/gen/lua/etinspect/lua_api_doc.lua
HOST_SRC = $(wildcard src/host/*.c)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
# failalloc.c is a preloaded shared object, not a program
TOOL_SRC = $(filter-out tests/tools/failalloc.c,$(wildcard tests/tools/*.c))

CORE_OBJ = $(CORE_SRC:%.c=$(B)/%.o) $(CORE_CXX:%.cc=$(B)/%.o)
LUA_OBJ  = $(LUA_SRC:%.c=$(B)/%.o) $(B)/gen/lua_embed.o
HOST_OBJ = $(HOST_SRC:%.c=$(B)/%.o)
PIC_OBJ  = $(CORE_SRC:%.c=$(B)/pic/%.o) $(CORE_CXX:%.cc=$(B)/pic/%.o) $(LUA_SRC:%.c=$(B)/pic/%.o) $(B)/pic/gen/lua_embed.o
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
TOOL_BIN = $(TOOL_SRC:tests/tools/%.c=$(B)/tools/%)

ASAN_CORE_OBJ = $(CORE_SRC:%.c=$(B)/asan/%.o) $(CORE_CXX:%.cc=$(B)/asan/%.o)
ASAN_LUA_OBJ  = $(LUA_SRC:%.c=$(B)/asan/%.o) $(B)/asan/gen/lua_embed.o
ASAN_HOST_OBJ = $(HOST_SRC:%.c=$(B)/asan/%.o)
ASAN_UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/asan/tests/%)

FIXTURES = $(wildcard tests/fixtures/*.json)
FIXTURE_BIN = $(FIXTURES:tests/fixtures/%.json=$(B)/fixtures/%.etdp)

.PHONY: all demo check test test-asan bench bench-frame fuzz fuzz-check install install-lua man html deb clean fixtures layers audit

# the version, written in one place: src/core/base/version.h (the man pages take
# it from here; the rockspec's name and debian/changelog are checked against
# it by tests/e2e/rockspec.t and tests/e2e/deb.t)
VERSION := $(shell sed -n 's/^\#define ETINSPECT_VERSION "\(.*\)"$$/\1/p' src/core/base/version.h)

all: $(B)/etinspect $(B)/etinspect.so

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(B)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) -Isrc/core $(CXXFLAGS_SHIM) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/asan/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) -Isrc/core $(CXXFLAGS_SHIM) $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(B)/pic/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) -Isrc/core $(CXXFLAGS_SHIM) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# the Lua library (lua/etinspect/*.lua), compiled into the binding as
# bytecode (made by the Lua the binding links) with its source beside it
$(B)/gen/embed-lua: scripts/embed-lua.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $< $(HOST_LUA_LIBS) -lm -o $@

$(B)/gen/lua_embed.c: $(LUA_LIB_FILES) $(GEN_LUA_FILES) $(B)/gen/embed-lua
	$(B)/gen/embed-lua $@ $(LUA_LIB_FILES) $(GEN_LUA_FILES)

# the HTML report's graph layout library (vendor/dagre/README.md): the
# minified script and its licences as a Lua module, etinspect.html_dagre
# (long strings; the build stops if the script could close one).  The page
# holds no control character: graphlib's two literal U+0001 (inside string
# literals) are written as the escape \x01, the same string to JavaScript,
# and the build stops if another control character is left
DAGRE = vendor/dagre
$(B)/gen/lua/etinspect/html_dagre.lua: $(DAGRE)/dagre.min.js $(DAGRE)/LICENSE $(DAGRE)/LICENSE.graphlib
	@mkdir -p $(dir $@)
	@if grep -q ']====]' $^; then echo "$(DAGRE): a file holds ]====]" >&2; exit 1; fi
	{ printf -- '-- generated from $(DAGRE) (see its README.md); do not edit\nreturn {\nLICENSE = [====[\n'; \
	  cat $(DAGRE)/LICENSE; printf '\n@dagrejs/graphlib:\n'; cat $(DAGRE)/LICENSE.graphlib; \
	  printf ']====],\nJS = [====[\n'; grep -v '^//# sourceMappingURL=' $(DAGRE)/dagre.min.js | sed 's/\x01/\\x01/g'; \
	  printf ']====],\n}\n'; } >$@.tmp
	@if LC_ALL=C tr -d '\n' <$@.tmp | LC_ALL=C grep -q '[[:cntrl:]]'; then \
	    echo "$(DAGRE): a control character left in the script" >&2; rm -f $@.tmp; exit 1; fi
	mv $@.tmp $@

# docs/lua-api.md as a Lua module, etinspect.lua_api_doc (a long string):
# the REPL's help(x) reads the fields and methods of x's type from it, so
# that the help and the reference are one text
$(B)/gen/lua/etinspect/lua_api_doc.lua: docs/lua-api.md
	@mkdir -p $(dir $@)
	@if grep -q ']====]' $<; then echo "$<: holds ]====]" >&2; exit 1; fi
	{ printf -- '-- generated from docs/lua-api.md; do not edit\nreturn [====[\n'; cat $<; \
	  printf ']====]\n'; } >$@.tmp
	mv $@.tmp $@

$(B)/gen/lua_embed.o: $(B)/gen/lua_embed.c
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/asan/gen/lua_embed.o: $(B)/gen/lua_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -c $< -o $@

$(B)/pic/gen/lua_embed.o: $(B)/gen/lua_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(B)/libetlua.a: $(LUA_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/asan/libetlua.a: $(ASAN_LUA_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# require "etinspect" from a stock lua5.4 (package.cpath)
$(B)/etinspect.so: $(PIC_OBJ)
	$(CC) -shared $(CFLAGS) $^ $(CORE_LIBS) -o $@

# the same under ASan+UBSan, for tests/e2e/stock_lua.t in make test-asan (a
# stock lua5.4 with the sanitizer's runtime preloaded)
ASAN_PIC_OBJ = $(PIC_OBJ:$(B)/pic/%=$(B)/asan/pic/%)
$(B)/asan/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(SAN_FLAGS) -fPIC -MMD -MP -c $< -o $@

$(B)/asan/pic/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) -Isrc/core $(CXXFLAGS_SHIM) $(SAN_FLAGS) -fPIC -MMD -MP -c $< -o $@

$(B)/asan/pic/gen/lua_embed.o: $(B)/gen/lua_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -fPIC -c $< -o $@

$(B)/asan/etinspect.so: $(ASAN_PIC_OBJ)
	$(CC) -shared $(SAN_FLAGS) $^ $(CORE_LIBS) -o $@

$(B)/libetcore.a: $(CORE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/asan/libetcore.a: $(ASAN_CORE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/etinspect: $(HOST_OBJ) $(B)/libetlua.a $(B)/libetcore.a
	$(CC) $(CFLAGS) -Wl,-E $^ $(HOST_LUA_LIBS) $(EDIT_LIBS) $(LDLIBS) -o $@

$(B)/asan/etinspect: $(ASAN_HOST_OBJ) $(B)/asan/libetlua.a $(B)/asan/libetcore.a
	$(CC) $(SAN_FLAGS) -Wl,-E $^ $(HOST_LUA_LIBS) $(EDIT_LIBS) $(LDLIBS) -o $@

$(B)/tests/%: tests/unit/%.c $(B)/libetcore.a tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(WARN) $(CFLAGS) $< $(B)/libetcore.a $(LDLIBS) -o $@

# the host's line reader is compiled into its test (the unit tests link the core only)
$(B)/tests/test_linereader $(B)/asan/tests/test_linereader: src/host/linereader.c src/host/linereader.h

$(B)/asan/tests/%: tests/unit/%.c $(B)/asan/libetcore.a tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(WARN) $(SAN_FLAGS) $< $(B)/asan/libetcore.a $(LDLIBS) -o $@

# the allocation-failure shim of tests/e2e/oom.t (LD_PRELOAD; fails the
# N-th allocation), linked against nothing but the C library
$(B)/tools/failalloc.so: tests/tools/failalloc.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared $< -o $@

# test tools: the JSON comparator uses jansson; the others only the core
$(B)/tools/cmp_ref_json: tests/tools/cmp_ref_json.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $< $(LDLIBS) -o $@

$(B)/tools/%: tests/tools/%.c $(B)/libetcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $< $(B)/libetcore.a $(LDLIBS) -o $@

# ETDump fixtures built from readable JSON by flatc (schema/etdump.fbs)
$(B)/fixtures/%.etdp: tests/fixtures/%.json schema/etdump.fbs schema/scalar_type.fbs
	@mkdir -p $(dir $@)
	$(FLATC) --binary --size-prefixed -o $(dir $@) schema/etdump.fbs $<

# the sample ETDump's ETRecord (tests/fixtures/sample_etrecord/README.md)
SREC = tests/fixtures/sample_etrecord
SAMPLE_ETRECORD = $(B)/fixtures/sample.etrecord
$(SAMPLE_ETRECORD): $(wildcard $(SREC)/*.json) $(B)/tools/mkzip
	@mkdir -p $(dir $@)
	$(B)/tools/mkzip $@ ETRECORD_V0=@ \
	    edge_dialect_exported_program/forward=$(SREC)/edge_dialect_exported_program.json \
	    debug_handle_map=$(SREC)/debug_handle_map.json delegate_map=$(SREC)/delegate_map.json \
	    instruction_id_to_num_outs_map=$(SREC)/instruction_id_to_num_outs_map.json \
	    export_graph_id=@0

fixtures: $(FIXTURE_BIN) $(SAMPLE_ETRECORD)

demo: $(B)/etinspect $(B)/etinspect.so $(B)/fixtures/sample.etdp $(SAMPLE_ETRECORD)
	$(B)/etinspect --etdump_path $(B)/fixtures/sample.etdp --etrecord_path $(SAMPLE_ETRECORD) \
	    --tsv_path $(B)/sample.tsv --json $(B)/sample.json
	@echo "wrote $(B)/sample.tsv and $(B)/sample.json"

# The suite: TAP programs and scripts run by prove.  ETINSPECT names the
# binary under test, so the same scripts run against the sanitizer build.
# Each test runs through tests/tools/runtest.sh (Lua tests by etinspect -e:
# it runs no file as a script unless its name ends in .lua).
RUNTEST = --exec 'sh tests/tools/runtest.sh'
TEST_ENV = ET_SHARED=$(SHARED) ET_BUILD=$(abspath $(B)) ET_SRC=$(CURDIR)

test: $(B)/etinspect $(B)/etinspect.so $(UNIT_BIN) $(TOOL_BIN) $(B)/tools/failalloc.so $(FIXTURE_BIN) $(SAMPLE_ETRECORD)
	$(TEST_ENV) ET_BIN=$(abspath $(B)) ETINSPECT=$(abspath $(B)/etinspect) PATH="$(abspath $(B)):$$PATH" \
	    prove $(RUNTEST) $(PROVE_FLAGS) $(UNIT_BIN) tests/e2e/*.t tests/lua/*.t

test-asan: $(B)/asan/etinspect $(B)/asan/etinspect.so $(ASAN_UNIT_BIN) $(TOOL_BIN) $(B)/tools/failalloc.so $(FIXTURE_BIN) $(SAMPLE_ETRECORD)
	$(TEST_ENV) ET_BIN=$(abspath $(B)/asan) ETINSPECT=$(abspath $(B)/asan/etinspect) \
	    PATH="$(abspath $(B)/asan):$$PATH" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    prove $(RUNTEST) $(PROVE_FLAGS) $(ASAN_UNIT_BIN) tests/e2e/*.t tests/lua/*.t

# the layering (a fraction of a second), the fuzz slices, then the two
# suites, one after the other (their builds may still run in parallel);
# the output ends with the ASan suite's summary from prove ("Result: PASS")
check:
	@$(MAKE) --no-print-directory layers
	@$(MAKE) --no-print-directory fuzz-check
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory test-asan

# the layering (scripts/check-layers.lua, rules in its header and in the
# README): the #include lines of src/ and the symbols of the build's
# objects, against the layer order, for cycles between layers and cycles of
# three files or more; one line per violation, fails if any
layers: all
	lua5.4 scripts/check-layers.lua . $(B)

# the symbol audit (not part of check): the product's public functions that
# no object uses, that only their own object uses (could be static), or that
# only tests, tools and fuzz targets use; from every object compiled at -O0
# (no call inlined away) into $(B)/audit
AUDIT_SRC = $(CORE_SRC) $(LUA_SRC) $(HOST_SRC) $(UNIT_SRC) $(TOOL_SRC) $(wildcard tests/fuzz/fuzz_*.c)
AUDIT_OBJ = $(AUDIT_SRC:%.c=$(B)/audit/%.o) $(CORE_CXX:%.cc=$(B)/audit/%.o)
$(B)/audit/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit -std=c11 -O0 -w -MMD -MP -c $< -o $@

$(B)/audit/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) -Isrc/core $(CXXFLAGS_SHIM) -O0 -MMD -MP -c $< -o $@

audit: $(AUDIT_OBJ)
	lua5.4 scripts/check-layers.lua --audit $(B)/audit

-include $(AUDIT_OBJ:.o=.d)

bench: $(B)/etinspect $(B)/tools/benchrun $(B)/tools/mkzip $(B)/tools/floor $(B)/tools/gen_etdump $(B)/tools/peakrss
	ETINSPECT=$(abspath $(B)/etinspect) ET_SHARED=$(SHARED) BENCHRUN=$(abspath $(B)/tools/benchrun) \
	    FLOOR=$(abspath $(B)/tools/floor) GEN_ETDUMP=$(abspath $(B)/tools/gen_etdump) \
	    PEAKRSS=$(abspath $(B)/tools/peakrss) FLATC=$(FLATC) sh scripts/bench.sh

# the Frame rows of the bench alone (scripts/bench/frame.sh; issue 24)
bench-frame: $(B)/etinspect $(B)/tools/benchrun $(B)/tools/floor $(B)/tools/peakrss
	ETINSPECT=$(abspath $(B)/etinspect) ET_SHARED=$(SHARED) BENCHRUN=$(abspath $(B)/tools/benchrun) \
	    FLOOR=$(abspath $(B)/tools/floor) PEAKRSS=$(abspath $(B)/tools/peakrss) sh scripts/bench/frame.sh

# the Parquet rows of make bench alone (scripts/bench/parquet.sh)
bench-parquet: $(B)/etinspect $(B)/tools/benchrun $(B)/tools/floor
	ETINSPECT=$(abspath $(B)/etinspect) ET_SHARED=$(SHARED) BENCHRUN=$(abspath $(B)/tools/benchrun) \
	    FLOOR=$(abspath $(B)/tools/floor) sh scripts/bench/parquet.sh

# libFuzzer targets (clang): every tests/fuzz/fuzz_NAME.c is a target,
# linked against the core, the Lua binding and the host compiled once with
# the fuzzer's instrumentation and ASan+UBSan (an archive member is linked
# only when the target uses it).  Per target, tests/fuzz/fuzz_NAME.seeds,
# .dict and .options feed scripts/fuzz.sh.
#   make fuzz                 every target for FUZZ_SECONDS (default 600) each,
#                             then executions and coverage per target
#   make fuzz FUZZ_TARGETS="fuzz_cli fuzz_html" FUZZ_SECONDS=60
#   make fuzz-check           a FUZZ_SLICE-second slice of each (part of check)
FUZZ_CC ?= clang
FUZZ_CXX ?= clang++
FUZZ_SLICE ?= 20
FUZZ_SAN = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS = $(FUZZ_SAN) -fsanitize=fuzzer
FUZZ_OBJ_FLAGS = $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_TARGETS ?= $(sort $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c))))
FUZZ_BINS = $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
FUZZ_LIB_SRC = $(CORE_SRC) $(LUA_SRC) $(filter-out src/host/main.c,$(HOST_SRC))
# per-target link flags: fuzz_cli sees every Lua state the CLI makes
FUZZ_LDFLAGS_fuzz_cli = -Wl,--wrap=luaL_newstate

# the product's sources: gcc's -Werror build is the gate; clang's own
# warnings are shown, not fatal, here
$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(filter-out -Werror,$(WARN)) $(FUZZ_OBJ_FLAGS) -MMD -MP -c $< -o $@

# the float shim, the one C++ file
$(B)/fuzz/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) -Isrc/core $(CXXFLAGS_SHIM) $(FUZZ_OBJ_FLAGS) -MMD -MP -c $< -o $@

$(B)/fuzz/obj/gen/lua_embed.o: $(B)/gen/lua_embed.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_OBJ_FLAGS) -c $< -o $@

$(B)/fuzz/libfuzzet.a: $(FUZZ_LIB_SRC:%.c=$(B)/fuzz/obj/%.o) $(CORE_CXX:%.cc=$(B)/fuzz/obj/%.o) \
    $(B)/fuzz/obj/gen/lua_embed.o
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h tests/tools/*.h) $(B)/fuzz/libfuzzet.a
	$(FUZZ_CC) $(CPPFLAGS) $(WARN) $(FUZZ_FLAGS) $< $(B)/fuzz/libfuzzet.a $(FUZZ_LDFLAGS_$*) \
	    $(HOST_LUA_LIBS) $(EDIT_LIBS) $(LDLIBS) -o $@

# the targets read fixtures (build/fixtures) and seeds from the checkout
fuzz: $(FUZZ_BINS) $(FIXTURE_BIN) $(SAMPLE_ETRECORD)
	@ET_SHARED=$(SHARED) ET_BUILD=$(abspath $(B)) sh scripts/fuzz.sh --summary $(FUZZ_SECONDS) $(FUZZ_BINS)

fuzz-check: $(addprefix fuzz-slice-,$(FUZZ_TARGETS))

fuzz-slice-%: $(B)/fuzz/% $(FIXTURE_BIN) $(SAMPLE_ETRECORD)
	@ET_SHARED=$(SHARED) ET_BUILD=$(abspath $(B)) sh scripts/fuzz.sh --slice $(FUZZ_SLICE) $(B)/fuzz/$*

-include $(FUZZ_LIB_SRC:%.c=$(B)/fuzz/obj/%.d)

# man pages: scdoc sources in man/, @VERSION@ filled in
MAN_PAGES = $(B)/man/etinspect.1 $(B)/man/etinspect-lua.3
$(B)/man/%: man/%.scd src/core/base/version.h
	@mkdir -p $(dir $@)
	sed 's/@VERSION@/$(VERSION)/g' $< | scdoc >$@.tmp && mv $@.tmp $@

man: $(MAN_PAGES)

# the Markdown docs as HTML, flat (README.html beside user-guide.html ...)
DOC_MD   = README.md $(wildcard docs/*.md)
DOC_HTML = $(patsubst %.md,$(B)/html/%.html,$(notdir $(DOC_MD)))
$(B)/html/README.html: README.md scripts/md2html.sh
	@mkdir -p $(dir $@)
	sh scripts/md2html.sh $< $@
$(B)/html/%.html: docs/%.md scripts/md2html.sh
	@mkdir -p $(dir $@)
	sh scripts/md2html.sh $< $@

html: $(DOC_HTML)

# man.t renders the pages; deb.t runs make install, which needs them all
test test-asan: $(MAN_PAGES) $(DOC_HTML)

# Installation directories (the Debian package sets LUA_LIBDIR to its
# multiarch path; luarocks uses install-lua with INST_LIBDIR)
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/etinspect
LUA_LIBDIR ?= $(PREFIX)/lib/lua/5.4
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions

install: $(B)/etinspect $(B)/etinspect.so $(MAN_PAGES) $(DOC_HTML) $(B)/fixtures/sample.etdp $(SAMPLE_ETRECORD)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/etinspect/schema $(DESTDIR)$(DOCDIR)/examples \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(BASH_COMPLETION_DIR)
	install -m 755 $(B)/etinspect $(DESTDIR)$(BINDIR)/etinspect
	install -m 644 schema/*.fbs $(DESTDIR)$(DATADIR)/etinspect/schema/
	install -m 644 README.md docs/*.md $(DOC_HTML) $(DESTDIR)$(DOCDIR)/
	install -m 644 $(B)/fixtures/sample.etdp $(SAMPLE_ETRECORD) $(DESTDIR)$(DOCDIR)/examples/
	install -m 644 $(B)/man/etinspect.1 $(DESTDIR)$(MANDIR)/man1/etinspect.1
	install -m 644 $(B)/man/etinspect-lua.3 $(DESTDIR)$(MANDIR)/man3/etinspect-lua.3
	install -m 644 completion/etinspect.bash $(DESTDIR)$(BASH_COMPLETION_DIR)/etinspect
	install -d $(DESTDIR)$(LUA_LIBDIR)
	install -m 644 $(B)/etinspect.so $(DESTDIR)$(LUA_LIBDIR)/etinspect.so

# the Lua module alone, into INST_LIBDIR (luarocks' build.install_target)
INST_LIBDIR ?= $(DESTDIR)$(LUA_LIBDIR)
install-lua: $(B)/etinspect.so
	install -d $(INST_LIBDIR)
	install -m 644 $(B)/etinspect.so $(INST_LIBDIR)/etinspect.so

# The Debian packages (scripts/mkdeb.sh): dpkg-buildpackage -us -uc -b in a
# temporary copy of the checkout (its parent directory gets the .debs, so
# not the shared parent of this one), then lintian and a run of the
# installed files from a scratch root (dpkg -x).  Output in $(B)/deb.
deb:
	sh scripts/mkdeb.sh $(abspath $(B)/deb) $(VERSION)

clean:
	rm -rf $(B)

-include $(CORE_OBJ:.o=.d) $(CORE_CXX:%.cc=$(B)/pic/%.d) $(HOST_OBJ:.o=.d) $(ASAN_CORE_OBJ:.o=.d) $(ASAN_HOST_OBJ:.o=.d) \
    $(LUA_SRC:%.c=$(B)/%.d) $(LUA_SRC:%.c=$(B)/asan/%.d) \
    $(CORE_SRC:%.c=$(B)/pic/%.d) $(LUA_SRC:%.c=$(B)/pic/%.d) $(ASAN_PIC_OBJ:.o=.d)
