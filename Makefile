# etinspect - build, test, fuzz and benchmark.
#
#   make               build build/etinspect
#   make demo          build the sample ETDump and run etinspect on it
#   make check         unit and end-to-end tests, then again under ASan+UBSan
#   make bench         load + aggregate + TSV of the large corpus dumps; a
#                      20,000-node ETRecord loaded and linked
#   make fuzz          run the libFuzzer targets (FUZZ_SECONDS each, default 600)
#   make install       install into $(DESTDIR)$(PREFIX) (default /usr/local)
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
CPPFLAGS += -Isrc/core -Isrc/lua -Isrc/host -D_POSIX_C_SOURCE=200809L $(LUA_CFLAGS) $(EDIT_CFLAGS)
CFLAGS  ?= -O2 -g
# the core reads ETRecords (ZIP archives of JSON) with libzip and jansson
ZIP_LIBS := $(or $(shell $(PKG_CONFIG) --libs libzip 2>/dev/null),-lzip)
LDLIBS  += $(ZIP_LIBS) -ljansson -lsqlite3 -lm
SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

B = build
CORE_SRC = $(wildcard src/core/*.c)
LUA_SRC  = $(wildcard src/lua/*.c)
LUA_LIB_FILES = $(sort $(wildcard lua/etinspect/*.lua lua/etinspect/scripts/*.lua))
HOST_SRC = $(wildcard src/host/*.c)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
TOOL_SRC = $(wildcard tests/tools/*.c)

CORE_OBJ = $(CORE_SRC:%.c=$(B)/%.o)
LUA_OBJ  = $(LUA_SRC:%.c=$(B)/%.o) $(B)/gen/lua_embed.o
HOST_OBJ = $(HOST_SRC:%.c=$(B)/%.o)
PIC_OBJ  = $(CORE_SRC:%.c=$(B)/pic/%.o) $(LUA_SRC:%.c=$(B)/pic/%.o) $(B)/pic/gen/lua_embed.o
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
TOOL_BIN = $(TOOL_SRC:tests/tools/%.c=$(B)/tools/%)

ASAN_CORE_OBJ = $(CORE_SRC:%.c=$(B)/asan/%.o)
ASAN_LUA_OBJ  = $(LUA_SRC:%.c=$(B)/asan/%.o) $(B)/asan/gen/lua_embed.o
ASAN_HOST_OBJ = $(HOST_SRC:%.c=$(B)/asan/%.o)
ASAN_UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/asan/tests/%)

FIXTURES = $(wildcard tests/fixtures/*.json)
FIXTURE_BIN = $(FIXTURES:tests/fixtures/%.json=$(B)/fixtures/%.etdp)

.PHONY: all demo check test test-asan bench fuzz install clean fixtures

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

# the Lua library (lua/etinspect/*.lua), compiled into the binding
$(B)/gen/lua_embed.c: $(LUA_LIB_FILES) scripts/embed-lua.sh
	@mkdir -p $(dir $@)
	sh scripts/embed-lua.sh $@ $(LUA_LIB_FILES)

$(B)/gen/lua_embed.o: $(B)/gen/lua_embed.c
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/asan/gen/lua_embed.o: $(B)/gen/lua_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -c $< -o $@

$(B)/pic/gen/lua_embed.o: $(B)/gen/lua_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(B)/libetlua.a: $(LUA_OBJ)
	$(AR) rcs $@ $^

$(B)/asan/libetlua.a: $(ASAN_LUA_OBJ)
	$(AR) rcs $@ $^

# require "etinspect" from a stock lua5.4 (package.cpath)
$(B)/etinspect.so: $(PIC_OBJ)
	$(CC) -shared $(CFLAGS) $^ $(ZIP_LIBS) -ljansson -lsqlite3 -lm -o $@

$(B)/libetcore.a: $(CORE_OBJ)
	$(AR) rcs $@ $^

$(B)/asan/libetcore.a: $(ASAN_CORE_OBJ)
	$(AR) rcs $@ $^

$(B)/etinspect: $(HOST_OBJ) $(B)/libetlua.a $(B)/libetcore.a
	$(CC) $(CFLAGS) -Wl,-E $^ $(HOST_LUA_LIBS) $(EDIT_LIBS) -ljansson $(LDLIBS) -o $@

$(B)/asan/etinspect: $(ASAN_HOST_OBJ) $(B)/asan/libetlua.a $(B)/asan/libetcore.a
	$(CC) $(SAN_FLAGS) -Wl,-E $^ $(HOST_LUA_LIBS) $(EDIT_LIBS) -ljansson $(LDLIBS) -o $@

$(B)/tests/%: tests/unit/%.c $(B)/libetcore.a tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(WARN) $(CFLAGS) $< $(B)/libetcore.a $(LDLIBS) -o $@

$(B)/asan/tests/%: tests/unit/%.c $(B)/asan/libetcore.a tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(WARN) $(SAN_FLAGS) $< $(B)/asan/libetcore.a $(LDLIBS) -o $@

# test tools: the JSON comparator uses jansson; the others only the core
$(B)/tools/cmp_ref_json: tests/tools/cmp_ref_json.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $< -ljansson $(LDLIBS) -o $@

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

demo: $(B)/etinspect $(B)/fixtures/sample.etdp $(SAMPLE_ETRECORD)
	$(B)/etinspect --etdump_path $(B)/fixtures/sample.etdp --etrecord_path $(SAMPLE_ETRECORD) \
	    --tsv_path $(B)/sample.tsv --json $(B)/sample.json
	@echo "wrote $(B)/sample.tsv and $(B)/sample.json"

# The suite: TAP programs and scripts run by prove.  ETINSPECT names the
# binary under test, so the same scripts run against the sanitizer build.
TEST_ENV = ET_SHARED=$(SHARED) ET_BUILD=$(abspath $(B)) ET_SRC=$(CURDIR)

test: $(B)/etinspect $(B)/etinspect.so $(UNIT_BIN) $(TOOL_BIN) $(FIXTURE_BIN) $(SAMPLE_ETRECORD)
	$(TEST_ENV) ET_BIN=$(abspath $(B)) ETINSPECT=$(abspath $(B)/etinspect) PATH="$(abspath $(B)):$$PATH" \
	    prove $(PROVE_FLAGS) $(UNIT_BIN) tests/e2e/*.t tests/lua/*.t

test-asan: $(B)/asan/etinspect $(ASAN_UNIT_BIN) $(TOOL_BIN) $(FIXTURE_BIN) $(SAMPLE_ETRECORD)
	$(TEST_ENV) ET_BIN=$(abspath $(B)/asan) ETINSPECT=$(abspath $(B)/asan/etinspect) \
	    PATH="$(abspath $(B)/asan):$$PATH" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    prove $(PROVE_FLAGS) $(ASAN_UNIT_BIN) tests/e2e/*.t tests/lua/*.t

# the two suites one after the other (their builds may still run in parallel)
check:
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory test-asan

bench: $(B)/etinspect $(B)/tools/benchrun $(B)/tools/mkzip
	ETINSPECT=$(abspath $(B)/etinspect) ET_SHARED=$(SHARED) BENCHRUN=$(abspath $(B)/tools/benchrun) \
	    FLATC=$(FLATC) sh scripts/bench.sh

# libFuzzer targets (clang)
FUZZ_CC ?= clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
$(B)/fuzz/%: tests/fuzz/%.c $(CORE_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(WARN) $(FUZZ_FLAGS) $< $(CORE_SRC) $(LDLIBS) -o $@

# the API harness: the Lua API driven by tests/fuzz/api_driver.lua (needs the
# fixtures; a short fixed-seed slice runs in make check: tests/lua/api_harness.t)
$(B)/fuzz/fuzz_api: tests/fuzz/fuzz_api.c $(CORE_SRC) $(LUA_SRC) $(B)/gen/lua_embed.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(WARN) $(FUZZ_FLAGS) -DET_SRC_DEFAULT='"$(CURDIR)"' $< $(CORE_SRC) \
	    $(LUA_SRC) $(B)/gen/lua_embed.c $(LUA_LIBS) $(LDLIBS) -o $@

fuzz: $(B)/fuzz/fuzz_etdump $(B)/fuzz/fuzz_legacy $(B)/fuzz/fuzz_etrecord $(B)/fuzz/fuzz_graph $(B)/fuzz/fuzz_npy $(B)/fuzz/fuzz_bundled $(B)/fuzz/fuzz_api $(FIXTURE_BIN) $(SAMPLE_ETRECORD)
	sh scripts/fuzz.sh $(B)/fuzz/fuzz_etdump $(FUZZ_SECONDS)
	sh scripts/fuzz.sh $(B)/fuzz/fuzz_legacy $(FUZZ_SECONDS)
	sh scripts/fuzz.sh $(B)/fuzz/fuzz_etrecord $(FUZZ_SECONDS)
	sh scripts/fuzz.sh $(B)/fuzz/fuzz_graph $(FUZZ_SECONDS)
	sh scripts/fuzz.sh $(B)/fuzz/fuzz_npy $(FUZZ_SECONDS)
	sh scripts/fuzz.sh $(B)/fuzz/fuzz_bundled $(FUZZ_SECONDS)
	sh scripts/fuzz.sh $(B)/fuzz/fuzz_api $(FUZZ_SECONDS)

install: $(B)/etinspect $(B)/etinspect.so
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/etinspect/schema \
	    $(DESTDIR)$(PREFIX)/share/doc/etinspect
	install -m 755 $(B)/etinspect $(DESTDIR)$(PREFIX)/bin/etinspect
	install -m 644 schema/*.fbs $(DESTDIR)$(PREFIX)/share/etinspect/schema/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/etinspect/
	install -d $(DESTDIR)$(PREFIX)/lib/lua/5.4
	install -m 644 $(B)/etinspect.so $(DESTDIR)$(PREFIX)/lib/lua/5.4/etinspect.so

clean:
	rm -rf $(B)

-include $(CORE_OBJ:.o=.d) $(HOST_OBJ:.o=.d) $(ASAN_CORE_OBJ:.o=.d) $(ASAN_HOST_OBJ:.o=.d) \
    $(LUA_SRC:%.c=$(B)/%.d) $(LUA_SRC:%.c=$(B)/asan/%.d) \
    $(CORE_SRC:%.c=$(B)/pic/%.d) $(LUA_SRC:%.c=$(B)/pic/%.d)
