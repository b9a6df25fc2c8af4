#!/bin/sh
# tracebound report --raw against trace-cmd report -N -R, whole process,
# output to /dev/null:  sh bench/report_bench.sh [FILE.dat] [RUNS]
# Prints the mean wall time over RUNS runs, the CPU time (user+sys) and
# peak RSS of one run (/usr/bin/time), the ratios, and RSS - file size.
set -eu
cd "$(dirname "$0")/.."
file=${1:-../shared/samples/sched4k.v7.dat}
runs=${2:-10}
cli=${CLI:-build/tracebound}
[ -f "$file" ] || { echo "report_bench: $file missing" >&2; exit 77; }
[ -x "$cli" ] || make -s "$cli"
command -v trace-cmd > /dev/null || { echo "report_bench: trace-cmd missing" >&2; exit 77; }
tm=/usr/bin/time
[ -x "$tm" ] || { echo "report_bench: /usr/bin/time missing" >&2; exit 77; }
tmp=${TMPDIR:-/tmp}/tb-bench.$$
trap 'rm -f "$tmp".*' EXIT

# the outputs must agree before they are timed
"$cli" report --raw "$file" > "$tmp.ours" 2>/dev/null || true
trace-cmd report -N -R "$file" > "$tmp.theirs" 2>/dev/null || true
if cmp -s "$tmp.ours" "$tmp.theirs"; then same=identical; else same=DIFFERENT; fi

mean_wall() { # cmd...: mean wall seconds over $runs runs
	start=$(date +%s%N)
	i=0
	while [ $i -lt "$runs" ]; do
		"$@" > /dev/null 2>&1 || true
		i=$((i + 1))
	done
	end=$(date +%s%N)
	echo "scale=4; ($end - $start) / $runs / 1000000000" | bc
}
one() { # cmd...: "cpu rss" of one run
	$tm -f '%U %S %M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f %d\n", $1 + $2, $3}'
}

ow=$(mean_wall "$cli" report --raw "$file")
tw=$(mean_wall trace-cmd report -N -R "$file")
set -- $(one "$cli" report --raw "$file")
oc=$1 om=$2
set -- $(one trace-cmd report -N -R "$file")
tc=$1 tmem=$2
size_kb=$(( $(wc -c < "$file") / 1024 ))
echo "file: $file ($size_kb KiB), outputs $same, $runs runs each, output to /dev/null"
printf 'tracebound report --raw   mean wall %7ss  cpu %5ss  peak RSS %6s KiB\n' "$ow" "$oc" "$om"
printf 'trace-cmd report -N -R    mean wall %7ss  cpu %5ss  peak RSS %6s KiB\n' "$tw" "$tc" "$tmem"
echo "speed-up (wall): $(echo "scale=1; $tw / $ow" | bc)x (goal >= 5x)"
echo "tracebound peak RSS - file size: $((om - size_kb)) KiB"
