# tracebound: build, test, fuzz, bench, install.
#
#   make            libtracebound.a, libtracebound.so.0 and the tracebound CLI
#   make check      every Check suite, the corpus replay, the symbol gates
#   make sanitize   the same under ASan+UBSan in build/sanitize/
#   make sanitize-ub  the same under clang's UBSan alone in build/ubsan/
#   make fuzz       libFuzzer targets (clang) in build/fuzz/
#   make afl        AFL++ targets (afl-clang-fast) in build/afl/
#   make coverage   line and branch coverage of lib/ (clang source-based)
#   make analyze    static analysis of lib/: scan-build, cppcheck, clang-tidy
#   make exported-symbols   regenerate ci/exported-symbols.txt after an API change
#   make bench      the benchmarks
#   make install    PREFIX=/usr/local DESTDIR=
#   make python     the Python module in build/python (python-check: its tests)
#
# Modules are found by wildcard: a new lib/X.c, cli/X.c, host/X.c, tests/test_X.c,
# fuzz/X_fuzzer.c or bench/X.c is picked up without editing this file.

VERSION   := 0.1.0
SOVERSION := 0
BUILD     ?= build
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR    ?= $(PREFIX)/bin
PKGCONFIG ?= pkg-config
FUZZ_CC   ?= clang
AFL_CC    ?= afl-clang-fast

# Gates (see docs/FUZZING.md): the largest stack frame any library function
# may have, and the coverage goals of `make coverage`.
STACK_LIMIT  ?= 4096
COV_LINES    ?= 95
COV_BRANCHES ?= 90
# The coverage goals fail the build once lib/ holds a decoder (before that,
# the foundation's figures are printed only).
COV_ENFORCE  ?= $(if $(filter-out lib/status.c,$(wildcard lib/*.c)),1,0)

# A flag is used only when this compiler accepts it (gcc and clang differ).
probe = $(shell if $(CC) -Werror $(1) -c -x c /dev/null -o /dev/null >/dev/null 2>&1; then echo "$(1)"; fi)

OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wpointer-arith -Wcast-qual -Wcast-align \
            -Wvla -Wformat=2 -Wundef -Wconversion -Wsign-conversion \
            -Wimplicit-fallthrough -Wwrite-strings -Wnull-dereference \
            $(call probe,-Walloca) $(call probe,-Wstack-usage=8192) \
            $(call probe,-Wframe-larger-than=8192) \
            $(call probe,-Wduplicated-cond) $(call probe,-Wlogical-op)
HARDEN   := -fstack-protector-strong $(call probe,-fstack-clash-protection) \
            $(call probe,-fcf-protection=full)
ifeq ($(SANITIZE),)
HARDEN   += -D_FORTIFY_SOURCE=2
endif
# SANITIZE=ub: UBSan alone (clang's checks pointer overflow, NULL + 0
# among it, which gcc's does not); any other value: ASan+UBSan.
SAN_FLAGS := $(if $(filter ub,$(SANITIZE)),-fsanitize=undefined,-fsanitize=address,undefined) \
             -fno-sanitize-recover=all -fno-omit-frame-pointer
ifneq ($(SANITIZE),)
OPT      := -O1 -g
EXTRA_CFLAGS += $(SAN_FLAGS)
EXTRA_LDFLAGS += $(SAN_FLAGS)
endif

CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L
# No basic-block vectorizer: on the per-event paths it pairs neighbouring
# struct fields into 16-byte loads that wait on the 8-byte stores just
# made to them (report measured 3-5% faster without it, on gcc 12).
NO_SLP   := $(call probe,-fno-tree-slp-vectorize) $(call probe,-fno-slp-vectorize)
LIB_CFLAGS := $(CSTD) $(OPT) $(NO_SLP) $(WARN) -Werror $(HARDEN) -fPIC -fvisibility=hidden \
              $(call probe,-fstack-usage) \
              -DTB_BUILDING_LIBRARY -Iinclude -Ilib $(EXTRA_CFLAGS)
# Tests, CLI, fuzz and bench: strict, but without the conversion warnings
# that Check's macros and printf-heavy code trip over.
APP_CFLAGS := $(CSTD) $(OPT) $(NO_SLP) -Wall -Wextra -Wshadow -Wvla -Wformat=2 -Werror \
              $(HARDEN) -Iinclude -Ilib $(EXTRA_CFLAGS)

# The Parquet writer's optional zstd compression (the library never links
# it); reading, host/codec.c loads zstd and zlib with dlopen.
HAVE_ZSTD := $(shell $(PKGCONFIG) --exists libzstd 2>/dev/null && echo 1)
CLI_DEFS  := $(if $(HAVE_ZSTD),-DTB_HAVE_ZSTD)
CLI_LIBS  := $(if $(HAVE_ZSTD),-lzstd) -ldl

CHECK_CFLAGS := $(shell $(PKGCONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKGCONFIG) --libs check 2>/dev/null)
TEP_CFLAGS   := $(shell $(PKGCONFIG) --cflags libtraceevent 2>/dev/null)
TEP_LIBS     := $(shell $(PKGCONFIG) --libs libtraceevent 2>/dev/null)

LIB_SRC   := $(sort $(wildcard lib/*.c))
LIB_HDR   := $(wildcard lib/*.h include/tracebound/*.h)
LIB_OBJ   := $(LIB_SRC:lib/%.c=$(BUILD)/lib/%.o)
CLI_SRC   := $(sort $(wildcard cli/*.c))
CLI_HDR   := $(wildcard cli/*.h)
# host/: the POSIX side (files, folders, pipes) the CLI and Python share
HOST_SRC  := $(sort $(wildcard host/*.c))
HOST_HDR  := $(wildcard host/*.h)
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TEST_SUP  := $(sort $(wildcard tests/support/*.c))
TEST_HDR  := $(wildcard tests/*.h tests/support/*.h) host/dlcodec.h
FUZZ_SRC  := $(sort $(wildcard fuzz/*_fuzzer.c))
FUZZ_NAMES := $(FUZZ_SRC:fuzz/%_fuzzer.c=%)
FUZZ_HDR  := $(wildcard fuzz/*.h) tests/parquet_read.h tests/pmclog_snap.h tests/plan_oracle.h \
             tests/perfwriter.h
BENCH_SRC := $(sort $(wildcard bench/*.c))
EXAMPLE_SRC := $(sort $(wildcard examples/*.c))
EXAMPLES  := $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)

STATIC    := $(BUILD)/libtracebound.a
SHARED    := $(BUILD)/libtracebound.so.$(VERSION)
CLI       := $(BUILD)/tracebound
CHECK_BIN := $(BUILD)/tests/check_all
REPLAY    := $(FUZZ_NAMES:%=$(BUILD)/replay/%)

.PHONY: examples all check check-run sanitize sanitize-ub fuzz afl bench install uninstall clean symbols \
        exported-symbols coverage analyze python python-check python-sanitize

# What a harness needs besides the library: one named *_diff_fuzzer.c
# compares tracebound with libtraceevent, so it (and only it) is compiled
# and linked against libtraceevent; fuzz/cli_fuzzer.c runs the CLI's
# commands, so it is built with cli/ (but its main.c), those sources
# compiled with the harness's own flags.
CLI_CMD_SRC := $(filter-out cli/main.c,$(CLI_SRC))
harness_cflags = $(if $(filter %_diff,$(1)),$(TEP_CFLAGS)) \
                 $(if $(filter cli,$(1)),-Icli -Ihost -pthread $(CLI_DEFS) $(CLI_CMD_SRC) $(HOST_SRC))
harness_libs   = $(if $(filter %_diff,$(1)),$(TEP_LIBS)) $(if $(filter cli,$(1)),$(CLI_LIBS))

all: $(STATIC) $(SHARED) $(CLI)

$(BUILD)/lib/%.o: lib/%.c $(LIB_HDR) Makefile
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

# The ring-buffer walk, pmclog's decoder and the text sink keep the
# basic-block vectorizer (see NO_SLP): kbuf_bench's large records and
# pmclog's JSON printer measured 5-10% faster with it.
$(BUILD)/lib/pmclog.o $(BUILD)/lib/text.o $(BUILD)/lib/kbuf.o: LIB_CFLAGS += $(call probe,-ftree-slp-vectorize) \
	$(call probe,-fslp-vectorize)

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(SHARED): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libtracebound.so.$(SOVERSION) -Wl,-z,defs \
	  -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack $(EXTRA_LDFLAGS) -o $@ $^
	ln -sf libtracebound.so.$(VERSION) $(BUILD)/libtracebound.so.$(SOVERSION)
	ln -sf libtracebound.so.$(SOVERSION) $(BUILD)/libtracebound.so

# The CLI sees the public headers only: what it needs of the library, a
# user's program can have too.
$(CLI): $(CLI_SRC) $(CLI_HDR) $(HOST_SRC) $(HOST_HDR) $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(filter-out -Ilib,$(APP_CFLAGS)) -pthread $(CLI_DEFS) -Icli -Ihost $(CLI_SRC) $(HOST_SRC) \
	  $(STATIC) $(CLI_LIBS) \
	  $(EXTRA_LDFLAGS) -o $@

# One Check runner holds every suite: tests/test_NAME.c defines
# `Suite *tb_suite_NAME(void)`, and this list is generated from the files.
# FORCE: a removed test file must drop out of the list too (cmp keeps the
# file untouched when nothing changed, so nothing is rebuilt needlessly).
$(BUILD)/tests/suites.inc: $(TEST_SRC) FORCE
	@mkdir -p $(@D)
	@printf 'TB_SUITE(%s)\n' $(TEST_SRC:tests/test_%.c=%) > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(CHECK_BIN): tests/check_main.c $(TEST_SRC) $(TEST_SUP) $(TEST_HDR) $(BUILD)/tests/suites.inc $(STATIC)
	$(CC) $(APP_CFLAGS) $(CHECK_CFLAGS) $(TEP_CFLAGS) -I$(BUILD)/tests -Itests \
	  -include tests/check_quiet.h \
	  -DTB_SRCDIR='"$(CURDIR)"' tests/check_main.c $(TEST_SRC) $(TEST_SUP) \
	  $(STATIC) $(CHECK_LIBS) $(TEP_LIBS) $(EXTRA_LDFLAGS) -o $@

# The fuzz harnesses, linked to a plain main that replays files.
$(BUILD)/replay/%: fuzz/%_fuzzer.c fuzz/replay_main.c $(FUZZ_HDR) $(STATIC) $(CLI_SRC) $(CLI_HDR) $(HOST_SRC) $(HOST_HDR)
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS) $(call harness_cflags,$*) -Ifuzz $< fuzz/replay_main.c $(STATIC) \
	  $(call harness_libs,$*) $(EXTRA_LDFLAGS) -o $@

# Per-test time limit (Check's default is 4 s): the every-prefix and
# real-capture tests run far longer under ASan on a loaded 2-core machine.
# A hang still fails, just later.
CHECK_TIMEOUT ?= 600

check: all symbols check-run

# The examples are what a user copies: built as a user would, against the
# public headers and the archive only (-I include, no -I lib).
examples: $(EXAMPLES)
$(BUILD)/examples/%: examples/%.c $(STATIC) $(wildcard include/tracebound/*.h)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -Iinclude $< $(STATIC) $(EXTRA_LDFLAGS) -o $@

# The suites run side by side, CHECK_JOBS processes at a time (one suite per
# process; tests/run-suites.sh adds up the results); so does the replay.
# Fresh captures come first (ci/capture-dat.sh; TB_KEEP_CAPTURES=1 reuses
# them); trace-cmd is tests/oracle's, which keeps what each report printed.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
ORACLE_PATH := $(if $(shell command -v trace-cmd 2>/dev/null),$(CURDIR)/tests/oracle:)
check-run: $(CHECK_BIN) $(REPLAY) $(CLI) $(EXAMPLES)
	sh ci/capture-dat.sh $(if $(TB_KEEP_CAPTURES),--keep) build/capture-dat \
	  >build/capture-dat.log 2>&1 || true
	$(CHECK_ENV) PATH="$(ORACLE_PATH)$$PATH" TB_TRACE_CMD_CACHE=$(CURDIR)/build/trace-cmd-cache \
	  TB_SRCDIR=$(CURDIR) TB_CLI=$(abspath $(CLI)) TB_EXAMPLES=$(abspath $(BUILD)/examples) \
	  CK_DEFAULT_TIMEOUT=$(CHECK_TIMEOUT) sh tests/run-suites.sh $(CHECK_BIN) $(CHECK_JOBS)
	@for t in $(REPLAY); do \
	  n=$$(find corpus -type f | wc -l); \
	  find corpus -type f -print0 | xargs -0 -r -n 512 -P $(CHECK_JOBS) $$t || exit 1; \
	  echo "replay: $$t ran $$n corpus files"; \
	done

# The library archive may call no allocator and no I/O; the shared
# library exports exactly the tb_* symbols listed in ci/exported-symbols.txt;
# no library function's stack frame exceeds STACK_LIMIT bytes.
symbols: $(STATIC) $(SHARED)
	sh ci/check-symbols.sh $(STATIC) $(SHARED) ci/exported-symbols.txt
	sh ci/check-stack.sh $(STACK_LIMIT) $(LIB_OBJ:.o=.su)

# After a deliberate API change: regenerate the committed export list.
exported-symbols: $(SHARED)
	sh ci/check-symbols.sh --list $(SHARED) > ci/exported-symbols.txt
	@echo "wrote ci/exported-symbols.txt ($$(wc -l < ci/exported-symbols.txt) symbols)"

# The tests run in the suite's own process here (CK_FORK=no): forking an
# ASan process for each test cost a third of this run on 2 cores (page
# tables of the shadow memory, a leak check at each child's exit).  The gcc
# run keeps Check's fork per test, and with it the per-test time limit.
sanitize:
	$(MAKE) BUILD=build/sanitize SANITIZE=1 CHECK_ENV=CK_FORK=no check-run

# clang's UBSan without ASan: the suites and the corpus replay again, cheap
# (no shadow memory), for the checks only clang has (pointer-overflow).
sanitize-ub:
	$(MAKE) CC=clang BUILD=build/ubsan SANITIZE=ub CHECK_ENV=CK_FORK=no check-run

# The fuzz and AFL++ builds compile the library once per flavour, not once
# per harness (13 harnesses: that was most of CI's fuzz step).
FUZZ_FLAGS := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
              -Iinclude -Ilib -Ifuzz -DTB_BUILDING_LIBRARY
FUZZ_OBJ   := $(LIB_SRC:lib/%.c=$(BUILD)/fuzz/lib/%.o)
AFL_OBJ    := $(LIB_SRC:lib/%.c=$(BUILD)/afl/lib/%.o)
AFL_ENV    := AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1
.SECONDARY: $(FUZZ_OBJ) $(AFL_OBJ)
fuzz: $(FUZZ_NAMES:%=$(BUILD)/fuzz/%)
$(BUILD)/fuzz/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(BUILD)/fuzz/%: fuzz/%_fuzzer.c $(FUZZ_OBJ) $(FUZZ_HDR) $(CLI_SRC) $(CLI_HDR) $(HOST_SRC) $(HOST_HDR)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(call harness_cflags,$*) $< $(FUZZ_OBJ) \
	  $(call harness_libs,$*) -o $@

afl: $(FUZZ_NAMES:%=$(BUILD)/afl/%)
$(BUILD)/afl/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(AFL_ENV) $(AFL_CC) -g -O1 -Iinclude -Ilib -DTB_BUILDING_LIBRARY -c $< -o $@
$(BUILD)/afl/%: fuzz/%_fuzzer.c $(AFL_OBJ) $(FUZZ_HDR) $(CLI_SRC) $(CLI_HDR) $(HOST_SRC) $(HOST_HDR)
	$(AFL_ENV) $(AFL_CC) -g -O1 -fsanitize=fuzzer -Iinclude -Ilib -Ifuzz -DTB_BUILDING_LIBRARY \
	  $(call harness_cflags,$*) $< $(AFL_OBJ) $(call harness_libs,$*) -o $@

# Coverage of lib/ by the Check suites plus the corpus replay, with clang's
# source-based coverage; ci/coverage.sh prints the table and applies the goals.
# The tests run unforked: a forked child writes its counts to its parent's
# %p profile, and the next child or the parent overwrites them.  %m (the
# binary's signature) turns on merging: a process whose pid an earlier one
# had adds its counts to that profile instead of overwriting it.
# The coverage run is also CI's sanitizer run: clang's ASan+UBSan (UBSan's
# pointer-overflow, NULL + 0, is what gcc's misses) in the same binaries, so
# CI runs the suites and the corpus replay once for both instead of twice
# (a gcc ASan run of its own cost CI about 7 minutes).  SANITIZE=1 gives the
# sanitizer build's -O1 and drops _FORTIFY_SOURCE; COV_FLAGS names the
# sanitizers itself because EXTRA_CFLAGS from the command line overrides the
# Makefile's own additions.  `make sanitize` (gcc) and `make sanitize-ub`
# remain for runs of their own.
COV_BUILD := build/coverage
COV_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
COV_FLAGS := -fprofile-instr-generate -fcoverage-mapping $(COV_SAN)
coverage:
	rm -rf $(COV_BUILD)/profiles && mkdir -p $(COV_BUILD)
	LLVM_PROFILE_FILE=$(CURDIR)/$(COV_BUILD)/profiles/%p-%m.profraw \
	  $(MAKE) CC=clang BUILD=$(COV_BUILD) SANITIZE=1 EXTRA_CFLAGS="$(COV_FLAGS)" \
	  EXTRA_LDFLAGS="$(COV_FLAGS)" CHECK_ENV=CK_FORK=no check-run >$(COV_BUILD).log 2>&1 || \
	  { tail -30 $(COV_BUILD).log; exit 1; }
	sh ci/coverage.sh $(COV_BUILD) $(COV_LINES) $(COV_BRANCHES) $(COV_ENFORCE)

analyze:
	sh ci/analyze.sh

BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
$(BUILD)/bench/%: bench/%.c $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O2 -g -Wall -Wextra -Werror -Iinclude -Ilib -Itests $(TEP_CFLAGS) $< \
	  $(STATIC) $(TEP_LIBS) -o $@
bench: $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; TB_SRCDIR=$(CURDIR) $$b || exit 1; done

# The Python module (python/, docs/python.md): a CPython extension compiled
# from python/src and lib/ by setuptools, for Debian's /usr/bin/python3
# (python3-dev, python3-setuptools; numpy, pandas and pytest for the tests).
PYTHON   ?= /usr/bin/python3
PY_BUILD := $(abspath $(BUILD))/python
py_build = cd python && $(1) $(PYTHON) setup.py -q build_py -d $(2) build_ext -b $(2) -t $(2)-tmp
# pytest's exit 5 (no test collected) is a failure here, said as such.
py_test = TB_CLI=$(abspath $(CLI)) PYTHONPATH=$(1) $(PYTHON) -m pytest -q -p no:cacheprovider \
	  $(2) || { rc=$$?; [ $$rc -ne 5 ] || echo "python: pytest collected no test"; exit 1; }
python:
	$(call py_build,TRACEBOUND_WERROR=1,$(PY_BUILD))
python-check: python $(CLI)
	$(call py_test,$(PY_BUILD),tests/python)
# The damaged-input tests against an ASan+UBSan build of the extension
# (the sanitizer runtime preloaded into the interpreter; Python's own
# allocations are not leak-checked).
python-sanitize: $(CLI)
	$(call py_build,CC=gcc TRACEBOUND_SANITIZE=1,$(PY_BUILD)-asan)
	LD_PRELOAD=$$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(call py_test,$(PY_BUILD)-asan,tests/python/test_errors.py tests/python/test_pmclog.py)

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/tracebound \
	  $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(BINDIR)
	install -m 644 include/tracebound/*.h $(DESTDIR)$(INCLUDEDIR)/tracebound/
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libtracebound.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtracebound.so.$(SOVERSION)
	ln -sf libtracebound.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libtracebound.so
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	  tracebound.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/tracebound.pc

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/tracebound
	rm -f $(DESTDIR)$(LIBDIR)/libtracebound.* $(DESTDIR)$(BINDIR)/tracebound \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/tracebound.pc

clean:
	rm -rf build

FORCE:
