#!/bin/sh
# convert --to perfetto beside report --raw, and its memory on a small and a
# large capture (it must stay constant: one bundle per CPU, one event's scratch).
#
#   sh bench/perfetto_bench.sh [FILE.dat] [RUNS] [REPEAT]
#
#
# Prints mean wall time over RUNS runs and one run's CPU time for both
# commands on FILE.dat, then for the raw dumps of tests/data/raw-sched4k
# repeated REPEAT times (default 210: about 440 MB) converted once.  Memory:
# peak RSS (/usr/bin/time; includes the mapped input's pages) and peak
# anonymous RSS (RssAnon from /proc, sampled every 20 ms: the heap and
# stacks, what the converter itself holds).
set -eu
cd "$(dirname "$0")/.."
file=${1:-../shared/samples/sched4k.v7.dat}
runs=${2:-5}
repeat=${3:-210}
cli=${CLI:-build/tracebound}
[ -f "$file" ] || { echo "perfetto_bench: $file missing" >&2; exit 77; }
[ -x "$cli" ] || make -s "$cli"
tm=/usr/bin/time
[ -x "$tm" ] || { echo "perfetto_bench: /usr/bin/time missing" >&2; exit 77; }
tmp=${TMPDIR:-build}/perfetto-bench
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

mean_wall() { # cmd...: mean wall seconds over $runs runs
	start=$(date +%s%N)
	i=0
	while [ $i -lt "$runs" ]; do
		"$@" >/dev/null 2>&1 || true
		i=$((i + 1))
	done
	echo "$(( ($(date +%s%N) - start) / runs / 1000000 ))"
}

# peak RssAnon (KB) of a command, sampled
peak_anon() {
	"$@" >/dev/null 2>&1 &
	pid=$!
	peak=0
	while kill -0 "$pid" 2>/dev/null; do
		a=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ -n "$a" ] && [ "$a" -gt "$peak" ] && peak=$a
		sleep 0.02
	done
	wait "$pid" || true
	echo "$peak"
}

one() { # label cmd...
	label=$1
	shift
	res=$($tm -f "%U %S %M" "$@" 2>&1 >/dev/null | tail -1)
	set -- $res
	echo "$label: cpu $(echo "$1 + $2" | bc) s, peak RSS $3 KB"
}

out=$tmp/out.pftrace
events=$($cli stats "$file" 2>/dev/null | awk '/^events:/ {print $2; exit}')
echo "== $file ($(wc -c <"$file") bytes, $events events), $runs runs"
w1=$(mean_wall "$cli" convert --to perfetto "$out" "$file")
w2=$(mean_wall "$cli" report --raw "$file")
echo "convert --to perfetto: ${w1} ms mean wall, $(wc -c <"$out") bytes out"
echo "report --raw:          ${w2} ms mean wall"
one "convert --to perfetto" "$cli" convert --to perfetto "$out" "$file"
one "report --raw         " "$cli" report --raw "$file"
echo "convert peak RssAnon: $(peak_anon "$cli" convert --to perfetto "$out" "$file") KB"

# a large capture: the raw dumps over and over (timestamps restart each time;
# the converter does not care)
mkdir -p "$tmp/formats" "$tmp/raw"
gzip -dc tests/data/formats-6.18.tar.gz | tar -xf - -C "$tmp/formats"
for cpu in 0 1; do
	i=0
	while [ $i -lt "$repeat" ]; do
		cat "tests/data/raw-sched4k/cpu$cpu.raw"
		i=$((i + 1))
	done >"$tmp/raw/cpu$cpu.raw"
done
cp tests/data/raw-sched4k/header_page tests/data/raw-sched4k/subbuf_kb "$tmp/raw/"
echo "== raw dumps x1 (the same path, for the memory)"
echo "convert peak RssAnon: $(peak_anon "$cli" convert --to perfetto --events "$tmp/formats/events" \
	"$out" tests/data/raw-sched4k/cpu0.raw tests/data/raw-sched4k/cpu1.raw) KB"
big=$(( $(wc -c <"$tmp/raw/cpu0.raw") + $(wc -c <"$tmp/raw/cpu1.raw") ))
echo "== raw dumps x$repeat ($big bytes)"
start=$(date +%s%N)
one "convert --to perfetto" "$cli" convert --to perfetto --events "$tmp/formats/events" \
	"$out" "$tmp/raw/cpu0.raw" "$tmp/raw/cpu1.raw"
echo "convert: $(( ($(date +%s%N) - start) / 1000000 )) ms wall, $(wc -c <"$out") bytes out"
echo "convert peak RssAnon: $(peak_anon "$cli" convert --to perfetto --events "$tmp/formats/events" \
	"$out" "$tmp/raw/cpu0.raw" "$tmp/raw/cpu1.raw") KB"
