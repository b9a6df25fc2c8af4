#!/bin/sh
# tracebound against perf script on a perf.data of a few hundred MB that
# this script makes (not in CI: needs root, perf and a few minutes).
#
#   sh bench/perf_bench.sh [TRACEBOUND] [MB] [DIR] [RUNS]
#
# The capture: every sched tracepoint, system wide, while `perf bench sched
# pipe` switches tasks as fast as it can.  Both tools format every sample
# to /dev/null on one thread, RUNS times each (default 3), one after the
# other; the figures are medians.  CPU time (user + sys) is the measure:
# the machine's cores are shared, so wall time says more about the
# neighbours (the load average is printed before and after).  Memory: the
# peak RSS (/usr/bin/time) counts a mapped file's pages (perf script maps
# its input; tracebound reads a file's data section through a buffer and
# touches the mapping only for the header and features), so the peak of
# the anonymous part (RssAnon, polled from /proc) is printed too: that is
# what the budget, the largest round and the task names bound.
# The default budget grows with the input (16 x its size), so the report
# is made once more under a fixed budget far below the file's size
# (BUDGET, default 96m): the same lines, and its anonymous peak, show that
# memory follows the largest round and the task names, not the file.  (The
# read buffer keeps the bytes of about two rounds: the bench capture's
# largest round is 84,494 records in 9 MB; the report needs 66 MiB.)
# tracebound must be >= 10x faster in CPU time (exit 1 when not, or when
# the budgeted report fails or differs).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tb=${1:-$here/../build/tracebound}
mb=${2:-300}
dir=${3:-$(mktemp -d)}
runs=${4:-3}
mkdir -p "$dir"
data=$dir/bench.data
if [ ! -s "$data" ]; then
	loops=$((mb * 1500))
	perf record -q -m 16M -e 'sched:*' -a -o "$data" -- \
		perf bench sched pipe -l "$loops" > /dev/null 2>&1
fi
size=$(stat -L -c %s "$data")
echo "capture: $data, $((size / 1048576)) MB; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# One run of "$@" to /dev/null: "cpu_s wall_s maxrss_kb anon_kb".
measure() {
	/usr/bin/time -f '%U %S %e %M' -o "$dir/time" "$@" > /dev/null 2>&1 &
	tpid=$!
	anon=0 pid=
	while kill -0 "$tpid" 2> /dev/null; do
		[ -n "$pid" ] || pid=$(pgrep -P "$tpid" | head -n 1) || true
		if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
			a=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2> /dev/null || true)
			[ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
		fi
		sleep 0.05
	done
	wait "$tpid" || true
	tail -n 1 "$dir/time" | awk -v a="$anon" '{ printf "%.2f %s %s %s\n", $1 + $2, $3, $4, a }'
}

median() { # column $1 of the lines on stdin
	sort -n -k "$1" | awk -v c="$1" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

: > "$dir/perf.runs"
: > "$dir/tb.runs"
i=0
while [ "$i" -lt "$runs" ]; do
	measure perf script -i "$data" >> "$dir/perf.runs"
	measure "$tb" report --jobs 1 "$data" >> "$dir/tb.runs"
	i=$((i + 1))
done
lines=$("$tb" report --jobs 1 "$data" | wc -l)
budget=${BUDGET:-96m}
full=$("$tb" report --jobs 1 "$data" | cksum)
# (the status kept whatever it is: set -e would end the group first and leave an old one)
rm -f "$dir/capped.rc"
capped=$({ rc=0; "$tb" report --jobs 1 --max-memory "$budget" "$data" || rc=$?; echo "$rc" > "$dir/capped.rc"; } | cksum)
capped_anon=$(($(measure "$tb" report --jobs 1 --max-memory "$budget" "$data" | cut -d' ' -f4) / 1024))
for who in perf tb; do
	f=$dir/$who.runs
	eval "${who}_cpu=$(median 1 < "$f") ${who}_wall=$(median 2 < "$f")"
	eval "${who}_rss=$(($(median 3 < "$f") / 1024)) ${who}_anon=$(($(median 4 < "$f") / 1024))"
	eval "${who}_all=\"$(awk '{ printf "%s%s", s, $1; s = " " }' "$f")\""
done
echo "perf script:       ${perf_cpu} s CPU (runs: ${perf_all}), ${perf_wall} s wall," \
	"max RSS ${perf_rss} MB, anonymous ${perf_anon} MB"
echo "tracebound report: ${tb_cpu} s CPU (runs: ${tb_all}), ${tb_wall} s wall," \
	"max RSS ${tb_rss} MB, anonymous ${tb_anon} MB ($lines lines, --jobs 1)"
echo "tracebound report --max-memory $budget: exit $(cat "$dir/capped.rc"), anonymous" \
	"${capped_anon} MB, lines $([ "$full" = "$capped" ] && echo identical || echo DIFFERENT)" \
	"to the default budget's (file: $((size / 1048576)) MB)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
fast=0
awk -v a="$perf_cpu" -v b="$tb_cpu" 'BEGIN {
	r = b > 0 ? a / b : 0; printf "speed-up (median CPU): %.1fx (goal: 10x)\n", r; exit (r >= 10 ? 0 : 1) }' ||
	fast=1
[ "$(cat "$dir/capped.rc")" = 0 ] && [ "$full" = "$capped" ] && exit $fast
exit 1
