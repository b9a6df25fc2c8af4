#!/bin/sh
# A fuzzing campaign on one harness: fuzz/TARGET_fuzzer.c.
#
#   ci/fuzz.sh TARGET SECONDS
#
# Builds the libFuzzer binary (ASan + UBSan, make fuzz), runs it for SECONDS
# wall-clock seconds with the target's dictionary (fuzz/TARGET.dict), its
# options (fuzz/TARGET.options, [libfuzzer] section) and its seeds
# (corpus/TARGET/), then merges what it found back into corpus/TARGET/,
# minimised, and prints one summary line: executions, execs/s, coverage
# (cov = edges, ft = features), corpus files before/after, findings.
#
# Environment:
#   FUZZ_JOBS=N      parallel fuzzing processes (libFuzzer -fork=N); default 1.
#                    CPU time is N x SECONDS.
#   FUZZ_MERGE=0     leave corpus/TARGET/ untouched (what ci/test.sh does).
#   FUZZ_ENGINE=afl  fuzz with AFL++ instead (make afl; persistent mode via
#                    libAFLDriver), then merge its queue with libFuzzer.
#   FUZZ_NICE=N      niceness of the fuzzing processes; default 10.
#   FUZZ_KEEP_GOING=1  record a finding and go on fuzzing (libFuzzer fork
#                    mode with -ignore_crashes/-ignore_timeouts), to finish a
#                    campaign on a target with a known, unfixed bug.
#   FUZZ_MERGE_FLAGS extra libFuzzer flags for the merge, e.g. -use_counters=0
#                    to keep only inputs that add edges (smaller corpora for
#                    targets with large inputs).
#   FUZZ_ROW=1       also print the result as a docs/FUZZING.md table row.
#
# CPU time is measured, not assumed: the CPU seconds of everything the run
# waited for (the fuzzer and, in fork mode, its children) are read from this
# shell's own accounting (/proc/$$/stat, children's user + system time) before
# and after, and printed as "cpu N s".  ci/fuzz-campaign.sh uses it to run each
# target until a CPU budget is spent.
#
# The corpus: files named by libFuzzer (40 hex digits, its SHA-1) are
# the minimisable part; every other file (hand-made seeds, named crash
# regressions) is kept as it is, whatever coverage it adds.  Findings are
# left in build/fuzz/TARGET-run/{crash,leak,timeout,oom}-* (or the AFL crashes directory) and make
# the script exit 1; fix them and keep the input in corpus/ under a name
# that says what it was.
set -eu
cd "$(dirname "$0")/.."

if [ "$#" -ne 2 ]; then
	echo "usage: ci/fuzz.sh TARGET SECONDS" >&2
	exit 2
fi
target=$1
seconds=$2
jobs=${FUZZ_JOBS:-1}
engine=${FUZZ_ENGINE:-libfuzzer}
merge=${FUZZ_MERGE:-1}
niceness=${FUZZ_NICE:-10}
src=fuzz/${target}_fuzzer.c
corpus=corpus/$target
bin=build/fuzz/$target
out=build/fuzz/$target-run
[ -f "$src" ] || { echo "fuzz: no harness $src" >&2; exit 2; }

make -s "$bin" >/dev/null
mkdir -p "$corpus"
rm -rf "$out" && mkdir -p "$out/new"

# libFuzzer flags from the target's .options file (the OSS-Fuzz format:
# "key = value" lines under [libfuzzer]), plus the dictionary.
opts=
if [ -f "fuzz/$target.options" ]; then
	opts=$(awk -F'=' '/^\[/ { s = ($0 ~ /^\[libfuzzer\]/) } s && NF == 2 {
		gsub(/[ \t]/, "", $1); gsub(/[ \t]/, "", $2); printf " -%s=%s", $1, $2 }' \
		"fuzz/$target.options")
fi
dict=
[ -f "fuzz/$target.dict" ] && dict=fuzz/$target.dict

count() { find "$1" -maxdepth 1 -type f | wc -l | tr -d ' '; }
bytes() { find "$1" -maxdepth 1 -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
before=$(count "$corpus")
before_bytes=$(bytes "$corpus")

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# CPU seconds of the children this shell has waited for (fields 16, 17 of
# /proc/PID/stat: cutime, cstime, in clock ticks).
tick=$(getconf CLK_TCK)
children_cpu() { awk -v t="$tick" '{ printf "%d", ($16 + $17) / t }' "/proc/$$/stat"; }
cpu_before=$(children_cpu)

findings=0
if [ "$engine" = afl ]; then
	make -s "build/afl/$target" >/dev/null
	# afl-fuzz refuses an empty input directory.
	[ "$before" -gt 0 ] || printf '\0' > "$out/new/empty"
	in=$corpus
	[ "$before" -gt 0 ] || in=$out/new
	AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
	AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CRASHES=1 \
	AFL_MAP_SIZE=${AFL_MAP_SIZE:-65536} \
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:symbolize=0:detect_odr_violation=0 \
		nice -n "$niceness" afl-fuzz -V "$seconds" -m none -t 10000 \
		${dict:+-x "$dict"} -i "$in" -o "$out/afl" -- "build/afl/$target" \
		> "$out/afl.log" 2>&1 || { tail -20 "$out/afl.log"; exit 1; }
	stats=$out/afl/default/fuzzer_stats
	stat() { awk -F': *' -v k="$1" '$1 ~ "^" k " *$" { print $2 }' "$stats"; }
	execs=$(stat execs_done)
	cov="map $(stat bitmap_cvg)"
	findings=$(find "$out/afl/default/crashes" "$out/afl/default/hangs" -type f \
		! -name README.txt 2>/dev/null | wc -l | tr -d ' ')
	newdir=$out/afl/default/queue
else
	fork=
	[ "$jobs" -gt 1 ] && fork="-fork=$jobs -ignore_crashes=0"
	[ "${FUZZ_KEEP_GOING:-0}" = 1 ] &&
		fork="-fork=$jobs -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	# New inputs go to $out/new; the corpus directory is only read.
	# shellcheck disable=SC2086
	nice -n "$niceness" "$bin" $opts ${dict:+-dict="$dict"} $fork \
		-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/" \
		"$out/new" "$corpus" > "$out/fuzz.log" 2>&1 || true
	# libFuzzer prints a status line "#EXECS <event> cov: E ft: F corp: ..."
	last=$(grep -E '^#[0-9]+' "$out/fuzz.log" | tail -1)
	execs=$(grep -E 'stat::number_of_executed_units' "$out/fuzz.log" | awk '{ s += $2 } END { print s + 0 }')
	[ "$execs" -gt 0 ] || execs=$(echo "$last" | sed -E 's/^#([0-9]+).*/\1/')
	cov=$(echo "$last" | grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo "cov: ? ft: ?")
	findings=$(find "$out" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) | wc -l | tr -d ' ')
	newdir=$out/new
	if [ "$findings" -eq 0 ] && grep -qE 'ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer)|runtime error|fuzz invariant broken' "$out/fuzz.log"; then
		findings=1
	fi
fi
[ -n "$execs" ] || execs=0
cpu=$(( $(children_cpu) - cpu_before ))
rate=$(awk -v e="$execs" -v s="$seconds" 'BEGIN { printf "%d", (s > 0 ? e / s : 0) }')

after=$before
if [ "$merge" = 1 ]; then
	# Minimise: the named files first (always kept), then libFuzzer keeps
	# only those hash-named and new inputs that add coverage.
	fresh=$out/merged
	rm -rf "$fresh" && mkdir -p "$fresh"
	find "$corpus" -maxdepth 1 -type f ! -regex '.*/[0-9a-f]\{40\}' -exec cp {} "$fresh/" \;
	mkdir -p "$out/hashed"
	find "$corpus" -maxdepth 1 -type f -regex '.*/[0-9a-f]\{40\}' -exec cp {} "$out/hashed/" \;
	# shellcheck disable=SC2086
	if nice -n "$niceness" "$bin" $opts ${FUZZ_MERGE_FLAGS:-} -merge=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/merge-" "$fresh" "$out/hashed" "$newdir" \
		> "$out/merge.log" 2>&1; then
		find "$corpus" -maxdepth 1 -type f -delete
		cp "$fresh"/* "$corpus"/ 2>/dev/null || true
	else
		echo "fuzz: merge failed, corpus left as it was (see $out/merge.log)" >&2
		findings=$((findings + 1))
	fi
	after=$(count "$corpus")
fi
after_bytes=$(bytes "$corpus")

echo "fuzz: $target ($engine, ${jobs}x${seconds}s, cpu $cpu s): $execs execs, $rate execs/s, $cov, corpus $before -> $after files ($before_bytes -> $after_bytes bytes), $findings findings"
if [ "${FUZZ_ROW:-0}" = 1 ]; then
	echo "| $target | $engine | $cpu | $execs | $rate | $cov | $before -> $after | $findings |"
fi
if [ "$findings" -gt 0 ]; then
	echo "fuzz: $target: findings in $out (log: $out/fuzz.log)" >&2
	[ -f "$out/fuzz.log" ] && grep -E -A12 'ERROR|runtime error|invariant broken' "$out/fuzz.log" | head -40 >&2
	exit 1
fi
