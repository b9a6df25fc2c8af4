#!/bin/sh
# tracebound against perf script on a perf.data of a few hundred MB that
# this script makes (not in CI: needs root, perf and a minute or two).
#
#   sh bench/perf_bench.sh [TRACEBOUND] [MB] [DIR]
#
# The capture: every sched tracepoint, system wide, while `perf bench sched
# pipe` switches tasks as fast as it can.  Both tools format every sample
# to /dev/null on one thread; the figures are CPU time (user + sys: the
# machine's cores are shared, so wall time says more about the neighbours),
# wall time and max RSS (/usr/bin/time).  tracebound must be >= 10x faster
# in CPU time.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tb=${1:-$here/../build/tracebound}
mb=${2:-300}
dir=${3:-$(mktemp -d)}
mkdir -p "$dir"
data=$dir/bench.data
if [ ! -s "$data" ]; then
	loops=$((mb * 6000))
	perf record -q -m 16M -e 'sched:*' -a -o "$data" -- \
		perf bench sched pipe -l "$loops" > /dev/null 2>&1
fi
size=$(stat -c %s "$data")
echo "capture: $data, $((size / 1048576)) MB"
measure() {
	/usr/bin/time -f '%U %S %e %M' -o "$dir/time" "$@" > /dev/null 2>&1 || true
	cat "$dir/time"
}
set -- $(measure perf script -i "$data")
perf_s=$(echo "$1 $2" | awk '{print $1 + $2}') perf_w=$3 perf_kb=$4
set -- $(measure "$tb" report --jobs 1 "$data")
tb_s=$(echo "$1 $2" | awk '{print $1 + $2}') tb_w=$3 tb_kb=$4
lines=$("$tb" report --jobs 1 "$data" | wc -l)
echo "perf script:       ${perf_s} s CPU (${perf_w} s wall), max RSS $((perf_kb / 1024)) MB"
echo "tracebound report: ${tb_s} s CPU (${tb_w} s wall), max RSS $((tb_kb / 1024)) MB" \
	"($lines lines, --jobs 1; the file is mapped: its pages count in RSS)"
awk -v a="$perf_s" -v b="$tb_s" 'BEGIN {
	r = b > 0 ? a / b : 0; printf "speed-up: %.1fx (goal: 10x)\n", r; exit (r >= 10 ? 0 : 1) }'
