#!/bin/sh
# Runs the Check suites side by side, one process per suite, JOBS at a time,
# then prints each suite's output in suite order and one closing line that
# adds them up.  A suite fails the run if it exits non-zero or prints no
# closing line of its own (a crash outside a forked test).
#
#   tests/run-suites.sh CHECK_BIN [JOBS]
#
# Each run records how long every suite took (suite-times beside CHECK_BIN);
# the next run starts the longest first, so the lanes finish close together.
# A build without its own record borrows build/tests/suite-times.
set -eu
bin=$1
jobs=${2:-2}
dir=$(dirname "$bin")
logs=$dir/suite-logs
rm -rf "$logs"
mkdir -p "$logs"
times=$dir/suite-times
[ -f "$times" ] || times=build/tests/suite-times
list=$("$bin" --list)
order=$list
if [ -f "$times" ]; then
	order=$(for s in $list; do
		t=$(awk -v s="$s" '$2 == s { print $1 }' "$times")
		echo "${t:-999999999} $s"
	done | sort -rn | cut -d' ' -f2)
fi
start=$(date +%s)
printf '%s\n' $order | xargs -P "$jobs" -I{} sh -c '
	t0=$(date +%s%N)
	rc=0
	"$2" "$1" >"$3/$1.log" 2>&1 || rc=$?
	echo "$rc" >"$3/$1.rc"
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$3/$1.ms"' sh {} "$bin" "$logs"

checks=0 failures=0 errors=0 bad=
: >"$dir/suite-times.tmp"
for s in $list; do
	cat "$logs/$s.log"
	rc=$(cat "$logs/$s.rc" 2>/dev/null || echo "not run")
	echo "$(cat "$logs/$s.ms" 2>/dev/null || echo 0) $s" >>"$dir/suite-times.tmp"
	line=$(grep -E '^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' \
		"$logs/$s.log" | tail -1 || true)
	if [ -z "$line" ]; then
		bad="$bad $s(no closing line, exit $rc)"
		continue
	fi
	set -- $(echo "$line" | sed 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/')
	checks=$((checks + $1)) failures=$((failures + $2)) errors=$((errors + $3))
	[ "$rc" = 0 ] || bad="$bad $s(exit $rc)"
done
mv "$dir/suite-times.tmp" "$dir/suite-times"
pass=100
[ "$checks" -eq 0 ] || pass=$(( (checks - failures - errors) * 100 / checks ))
echo "suites: $(echo $list | wc -w) in $(( $(date +%s) - start ))s, $jobs at a time"
echo "$pass%: Checks: $checks, Failures: $failures, Errors: $errors"
if [ -n "$bad" ]; then
	echo "failed suites:$bad"
	exit 1
fi
