#!/bin/sh
# The OSS-Fuzz hand-off, exercised without Docker: run ci/oss-fuzz/build.sh
# with the variables OSS-Fuzz sets for libFuzzer + AddressSanitizer on
# x86_64, then run every target it produced for a few seconds on its
# unpacked seed corpus with its dictionary and options, as ClusterFuzz
# would, and then run_tests.sh (the unit tests, as OSS-Fuzz's Chronos runs
# them in the build image).  Fails when the build fails, a target is missing
# its seed corpus, any target crashes, or the unit tests fail.
#
#   ci/oss-fuzz/run-local.sh [SECONDS-PER-TARGET]      (default 3)
#   OSSFUZZ_RUN_TESTS=0 ci/oss-fuzz/run-local.sh       without run_tests.sh
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-3}
top=$(pwd)

export CC=clang CXX=clang++
export SANITIZER=address ARCHITECTURE=x86_64 FUZZING_ENGINE=libfuzzer FUZZING_LANGUAGE=c
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export SRC=$top/build/oss-fuzz-src WORK=$top/build/oss-fuzz-work OUT=$top/build/oss-fuzz-out
export TB_SRC=$top
rm -rf "$SRC" "$WORK" "$OUT"
mkdir -p "$SRC" "$WORK" "$OUT"
bash ci/oss-fuzz/build.sh

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
fail=0
n=0
for t in "$OUT"/*_fuzzer; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	n=$((n + 1))
	run=$WORK/run-$name
	rm -rf "$run" && mkdir -p "$run/corpus"
	if [ -f "${t}_seed_corpus.zip" ]; then
		(cd "$run/corpus" && unzip -q "${t}_seed_corpus.zip")
	else
		echo "oss-fuzz: $name has no seed corpus" >&2
		fail=1
	fi
	opts=
	if [ -f "$t.options" ]; then
		opts=$(awk -F'=' '/^\[/ { s = ($0 ~ /^\[libfuzzer\]/) } s && NF == 2 {
			gsub(/[ \t]/, "", $1); gsub(/[ \t]/, "", $2); printf " -%s=%s", $1, $2 }' "$t.options")
	fi
	dict=
	[ -f "$t.dict" ] && dict=-dict=$t.dict
	seeds=$(find "$run/corpus" -type f | wc -l | tr -d ' ')
	# shellcheck disable=SC2086
	if nice "$t" $opts $dict -max_total_time="$seconds" -timeout=10 \
		-artifact_prefix="$run/" -print_final_stats=1 "$run/corpus" \
		> "$run.log" 2>&1; then
		execs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$run.log")
		echo "oss-fuzz: $name ran ${seconds}s over $seeds seeds: ${execs:-?} execs, no crash"
	else
		tail -30 "$run.log" >&2
		echo "oss-fuzz: $name failed (log $run.log)" >&2
		fail=1
	fi
done
[ "$n" -gt 0 ] || { echo "oss-fuzz: build.sh produced no targets" >&2; exit 1; }
if [ "${OSSFUZZ_RUN_TESTS:-1}" = 0 ]; then
	echo "oss-fuzz: run_tests.sh not run (OSSFUZZ_RUN_TESTS=0: the same make check-run ran already)"
elif bash ci/oss-fuzz/run_tests.sh > "$WORK/run_tests.log" 2>&1; then
	echo "oss-fuzz: run_tests.sh passed ($(grep -E '^[0-9]+%: Checks' "$WORK/run_tests.log"))"
else
	tail -30 "$WORK/run_tests.log" >&2
	echo "oss-fuzz: run_tests.sh failed (log $WORK/run_tests.log)" >&2
	fail=1
fi
exit "$fail"
