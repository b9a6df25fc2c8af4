#!/bin/sh
# The project's whole test run: what CI runs and what a developer runs.
#   ci/test.sh            build, unit tests, corpus replay, sanitizers, short fuzzing
#   FUZZ_SECONDS=0 ci/test.sh   skip the fuzzing step
set -eu
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-60}

need=
for t in clang afl-clang-fast pkg-config trace-cmd; do
	command -v "$t" >/dev/null 2>&1 || need=1
done
for p in check libtraceevent; do
	pkg-config --exists "$p" 2>/dev/null || need=1
done
[ -f /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || need=1
if [ -n "$need" ]; then
	echo "== setup (missing build or test dependencies)"
	sh ci/setup.sh
fi

jobs=$(nproc 2>/dev/null || echo 2)

echo "== build and check (gcc)"
make -j"$jobs" CC=gcc all
make CC=gcc check

echo "== build and check (clang)"
make -j"$jobs" CC=clang BUILD=build/clang all
make CC=clang BUILD=build/clang check

echo "== sanitize (ASan+UBSan)"
make -j"$jobs" sanitize

if [ "$FUZZ_SECONDS" -gt 0 ]; then
	echo "== fuzz (libFuzzer, ${FUZZ_SECONDS}s per target)"
	make -j"$jobs" fuzz
	make -j"$jobs" afl >/dev/null 2>&1 && echo "afl: harnesses build with afl-clang-fast"
	for src in fuzz/*_fuzzer.c; do
		[ -e "$src" ] || continue
		name=$(basename "$src" _fuzzer.c)
		work=build/fuzz/work-$name
		rm -rf "$work" && mkdir -p "$work" "corpus/$name"
		dict=
		[ -f "fuzz/$name.dict" ] && dict="-dict=fuzz/$name.dict"
		# shellcheck disable=SC2086
		if ! build/fuzz/"$name" $dict -max_total_time="$FUZZ_SECONDS" \
			-print_final_stats=1 -artifact_prefix="build/fuzz/$name-" \
			"$work" "corpus/$name" >"build/fuzz/$name.log" 2>&1; then
			tail -40 "build/fuzz/$name.log"
			echo "fuzz: $name found a crash (see build/fuzz/$name-*)"
			exit 1
		fi
		echo "fuzz: $name $(grep -E 'stat::number_of_executed_units' "build/fuzz/$name.log" | awk '{print $2}') execs, no crash"
	done
fi
echo "== all tests passed"
