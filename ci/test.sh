#!/bin/sh
# The project's whole test run: what CI runs (.ci/run) and what a developer
# runs.  In order, cheapest first:
#   1. build and check with gcc (suites, corpus replay, allocation/I/O,
#      export-list and stack-frame gates); build with clang (-Werror; its
#      run of the suites is step 2's, under its sanitizers and coverage)
#   2. the same under clang's ASan+UBSan (UBSan's pointer overflow, NULL +
#      0, is what gcc's misses), instrumented for line and branch coverage
#      of lib/ (table; goals enforced): one run for both
#   3. the Parquet output read by DuckDB and hyparquet
#      (tests/parquet_check.sh), and as a dataset of many uploads
#      (tests/lake_check.sh); report --json against libtraceevent
#   4. static analysis of lib/ (scan-build, cppcheck, clang-tidy)
#   5. the OSS-Fuzz build script run as OSS-Fuzz would, each target briefly
#   6. the AFL++ build, and FUZZ_SECONDS of libFuzzer per target
#   7. Perfetto output: protoc decodes every conversion, compare.py checks
#      it against libtraceevent (tests/perfetto/check.sh, runnable alone)
#   8. the Python module: its tests, and the damaged-input ones under ASan
#
#   ci/test.sh                   everything (20 to 25 minutes on 2 cores)
#   FUZZ_SECONDS=0 ci/test.sh    skip step 6's fuzzing
set -eu
cd "$(dirname "$0")/.."
# 14 harnesses: 8 s each keeps the whole run near 20 minutes on 2 cores;
# campaigns (ci/fuzz-campaign.sh) are where fuzzing time goes
FUZZ_SECONDS=${FUZZ_SECONDS:-5}
start=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - start ))s)"; }

need=
for t in node npm gcc clang clang++ afl-clang-fast afl-fuzz pkg-config trace-cmd nm \
	scan-build cppcheck clang-tidy llvm-cov llvm-profdata jq zip unzip; do
	command -v "$t" >/dev/null 2>&1 || { echo "missing: $t"; need=1; }
done
for p in check libtraceevent; do
	pkg-config --exists "$p" 2>/dev/null || { echo "missing: $p (pkg-config)"; need=1; }
done
/usr/bin/python3 -c 'import numpy, pandas, pytest, setuptools, sysconfig, os
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
	>/dev/null 2>&1 || { echo "missing: Debian's python3 packages"; need=1; }
/usr/bin/python3 -c 'import google.protobuf' 2>/dev/null || { echo "missing: python3-protobuf"; need=1; }
[ -f /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
	{ echo "missing: libFuzzer"; need=1; }
if [ -n "$need" ]; then
	step "setup (missing build or test dependencies)"
	sh ci/setup.sh
fi

jobs=$(nproc 2>/dev/null || echo 2)

step "build and check (gcc)"
make -j"$jobs" CC=gcc all
make -j"$jobs" CC=gcc check

step "build (clang -Werror; the suites run under clang in the coverage step)"
make -j"$jobs" CC=clang BUILD=build/clang all examples symbols build/clang/tests/check_all

# The sanitizer and coverage run reads step 1's fresh captures again (their
# trace-cmd output is kept: tests/oracle).  clang's UBSan checks pointer
# overflow (NULL + 0), gcc's does not; the sanitizers and the coverage
# counters share one clang build (Makefile COV_FLAGS), one run of the suites
step "sanitize (clang ASan+UBSan) and coverage of lib/ (unit tests + corpus replay)"
TB_KEEP_CAPTURES=1 make -s coverage
step "Parquet tables read by DuckDB and hyparquet (samples, corpus)"
[ -d tests/node/node_modules/@duckdb/node-api ] || sh ci/setup.sh
sh tests/parquet_check.sh
step "a dataset of uploads read by DuckDB and hyparquet (tests/lake_check.sh)"
sh tests/lake_check.sh
step "report --json read by DuckDB against libtraceevent (tests/json_check.sh)"
sh tests/json_check.sh

step "static analysis of lib/"
sh ci/analyze.sh

step "OSS-Fuzz build.sh (libFuzzer + ASan, as OSS-Fuzz runs it)"
# run_tests.sh is `make check-run` in a build of its own: step 1 ran exactly
# that, so CI does not run it a third time (run-local.sh alone does)
# Each target replays its seed corpus and fuzzes 1 s more: the hand-off is
# what this step checks; step 6 and the campaigns are where fuzzing happens
OSSFUZZ_RUN_TESTS=0 sh ci/oss-fuzz/run-local.sh 1

if [ "$FUZZ_SECONDS" -gt 0 ]; then
	step "fuzz (AFL++ build; libFuzzer ${FUZZ_SECONDS}s per target)"
	make -j"$jobs" afl >build/afl.log 2>&1 || { tail -20 build/afl.log; exit 1; }
	echo "afl: $(find build/afl -maxdepth 1 -type f -perm -u+x | wc -l) harnesses build with afl-clang-fast (persistent mode)"
	# All libFuzzer binaries first (they share one library build), then the
	# targets $jobs at a time, each a single process: a finding in any fails
	# the step.  The corpus is not changed here: campaigns (ci/fuzz.sh) merge.
	make -s -j"$jobs" fuzz >build/fuzz.log 2>&1 || { tail -20 build/fuzz.log; exit 1; }
	ls fuzz/*_fuzzer.c | xargs -P "$jobs" -I{} sh -c \
		'FUZZ_MERGE=0 FUZZ_NICE=0 sh ci/fuzz.sh "$(basename "$1" _fuzzer.c)" "$2"' \
		sh {} "$FUZZ_SECONDS"
fi
step "Perfetto output (protoc decode, compare with libtraceevent)"
TB_KEEP_CAPTURES=1 sh tests/perfetto/check.sh build
step "python module (tests against the CLI; damaged inputs under ASan+UBSan, alongside)"
make -j"$jobs" --output-sync=target python-check python-sanitize

step "all tests passed"
