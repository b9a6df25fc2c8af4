#!/bin/bash
# `tracebound report --jobs 2`, `convert --to perfetto --jobs 2` and
# `convert --to parquet --jobs 2` against `--jobs 1` on a large capture
# (issue 17: goal >= 1.8x wall time on 2 cores, output byte-identical):
#   bash bench/jobs_bench.sh [FILE.dat]         after `make`
#   MODES=perfetto bash bench/jobs_bench.sh      some of them (plain raw perfetto parquet)
# FILE defaults to build/bench/large.dat, made by bench/make_large.sh
# (root, tracefs, trace-cmd; a few hundred MB captured on this machine,
# made once and reused).  Without that script, a capture of its own is
# recorded with trace-cmd record for SECS seconds (default 10) into
# build/bench/jobs.dat.
#
# First the outputs of --jobs 1 and --jobs 2 are compared (md5 of the
# streams, nothing written to disk) for report, report --raw and convert
# --to perfetto.  Then, for each, RUNS (default 5; PF_RUNS, default 3, for
# perfetto, whose trace is about twice the capture) pairs of runs, --jobs
# 1 and --jobs 2 in turn, output to /dev/null; printed: every wall time, the best and the median
# of each, CPU time (user + sys) of the best, and the speed-up of the
# best, of the medians and the median of each pair's ratio (the figure:
# the pairs are the least moved by a machine whose speed wanders).  The machine is shared: the load average
# before and after is printed; a loaded machine lowers the speed-up (the
# second thread waits for a core), so rerun when it is quiet before
# believing a low figure.  Prints "figure:" lines for bench/check.sh.
#
# The control: a virtual machine's two CPUs need not be two CPUs' worth.
# On this one, two copies of `report --jobs 1` pinned one to each CPU and
# started together often end 30-50% apart (and pure-ALU loops do not), so
# --jobs 2 runs at the speed of the slower CPU's share whatever the code
# does.  So each round also runs that pinned pair (taskset, the first two
# CPUs of this shell's affinity; CONTROL=0 leaves it out), times ta and tb:
# the two CPUs together do the work in ideal = 1 / (1/ta + 1/tb), what a
# perfect split would take.  Printed per mode, medians over the rounds:
# the capacity (--jobs 1 wall / ideal: 2.0 on two whole CPUs, the
# speed-up the machine allowed that round) and the efficiency (ideal /
# --jobs 2 wall: 1.0 is a split that lost nothing, whatever the CPUs gave).
# Exit 77 when there is no capture and none can be made.
set -eu
cd "$(dirname "$0")/.."
file=${1:-build/bench/large.dat}
runs=${RUNS:-5}
cli=${CLI:-build/tracebound}
[ -x "$cli" ] || make -s -j2 "$cli"
if [ ! -s "$file" ]; then
	if [ "$file" = build/bench/large.dat ] && [ -f bench/make_large.sh ]; then
		sh bench/make_large.sh "$file" || exit $?
	else
		file=build/bench/jobs.dat
		if [ ! -s "$file" ]; then
			command -v trace-cmd > /dev/null ||
				{ echo "jobs_bench: no capture and no trace-cmd" >&2; exit 77; }
			mkdir -p build/bench
			secs=${SECS:-10}
			echo "jobs_bench: recording $file for $secs s (trace-cmd record)" >&2
			trace-cmd record -q --file-version 6 -b 65536 -e sched -e irq -e timer \
				-e syscalls -o "$file" -- sh -c "end=\$((\$(date +%s) + $secs));
				while [ \$(date +%s) -lt \$end ]; do ls -R /usr/include > /dev/null; done" \
				> /dev/null || { echo "jobs_bench: trace-cmd record failed" >&2; exit 77; }
		fi
	fi
fi
echo "jobs_bench: $file ($(($(wc -c < "$file") >> 20)) MiB), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# the command of a mode, its output on stdout: tb MODE ARGS...
tb() {
	local m=$1
	shift
	if [ "$m" = perfetto ]; then
		"$cli" convert --to perfetto "$@" - "$file"
	else
		"$cli" report "$@" "$file"
	fi
}
# wall and CPU seconds of one run, output discarded
run() {
	{ /usr/bin/time -f "%U %S" "$cli" "$@" > /dev/null; } 2>&1 | tail -1
}
# wall seconds of a command, its output discarded
wall_of() {
	local s e
	s=$(date +%s.%N)
	"$@" > /dev/null
	e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.3f", $2 - $1 }'
}
wall() { wall_of tb "$@" 2> /dev/null; }
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# the median of the ratios of the pairs (run k of --jobs 1 over run k of
# --jobs 2): each pair ran within seconds, so a machine whose speed
# wanders between minutes moves both of a pair alike
pairs() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ");
		for (i = 1; i <= n; i++) print x[i] / y[i] }' | median | awk '{ printf "%.2f", $1 }'
}
best() { tr ' ' '\n' | sort -g | head -1; }
# the control's CPUs: the first two this shell may run on
cpus=
if [ "${CONTROL:-1}" != 0 ] && command -v taskset > /dev/null; then
	cpus=$(taskset -pc $$ 2> /dev/null | sed 's/.*: *//' | tr ',' '\n' |
		awk -F- '{ if (NF == 2) for (i = $1; i <= $2; i++) print i; else print $1 }' |
		head -2 | tr "\n" " " | sed "s/ $//")
	[ "$(echo $cpus | wc -w)" = 2 ] || cpus=
fi
# the control's ideal time: the command (its output discarded) run twice
# at once, pinned one to each CPU; 1 / (1/ta + 1/tb)
ideal_of() {
	local c ta tb d
	d=$(mktemp -d "${TMPDIR:-/tmp}/tb-jobs-ctl.XXXXXX")
	for c in $cpus; do
		# the subshell pins itself (the command may be a function)
		(taskset -pc "$c" $BASHPID > /dev/null && wall_of "$@" > "$d/$c") 2> /dev/null &
	done
	wait
	set -- $cpus
	ta=$(cat "$d/$1") tb=$(cat "$d/$2")
	rm -rf "$d"
	echo "$ta $tb" | awk '{ printf "%.3f", ($1 > 0 && $2 > 0) ? 1 / (1 / $1 + 1 / $2) : 0 }'
}
# the control's medians, printed: control MODE "W1S" "W2S" "IDEALS"
control() {
	[ -n "$cpus" ] || { echo "  control: none (CONTROL=0, no taskset, or one CPU)"; return; }
	local cap eff
	cap=$(pairs "$2" "$4")
	eff=$(pairs "$4" "$3")
	echo "  control, --jobs 1 pinned to CPUs $cpus at once, ideal split:$4 s"
	echo "  capacity of the two CPUs ${cap}x; efficiency of --jobs 2 ${eff} (1.00: nothing lost to the split)"
	echo "figure: jobs2_$1_efficiency $eff"
}

modes=" ${MODES:-plain raw perfetto parquet} "
for mode in $modes; do
	[ $mode = parquet ] && continue
	opt= name="report" n=$runs
	[ $mode = raw ] && opt=--raw name="report --raw"
	[ $mode = perfetto ] && name="convert --to perfetto" n=${PF_RUNS:-3}
	a=$(tb $mode --jobs 1 $opt 2> /dev/null | md5sum)
	b=$(tb $mode --jobs 2 $opt 2> /dev/null | md5sum)
	[ "$a" = "$b" ] || { echo "jobs_bench: $name: --jobs 2 differs from --jobs 1" >&2; exit 1; }
	w1= w2= wi=
	for r in $(seq "$n"); do
		w1="$w1 $(wall $mode --jobs 1 $opt)"
		w2="$w2 $(wall $mode --jobs 2 $opt)"
		[ -z "$cpus" ] || wi="$wi $(ideal_of tb $mode --jobs 1 $opt)"
	done
	b1=$(echo $w1 | best); b2=$(echo $w2 | best)
	m1=$(echo $w1 | median); m2=$(echo $w2 | median)
	if [ $mode = perfetto ]; then
		c1=$(run convert --to perfetto --jobs 1 /dev/null "$file" | awk '{ printf "%.2f", $1 + $2 }')
		c2=$(run convert --to perfetto --jobs 2 /dev/null "$file" | awk '{ printf "%.2f", $1 + $2 }')
	else
		c1=$(run report --jobs 1 $opt "$file" | awk '{ printf "%.2f", $1 + $2 }')
		c2=$(run report --jobs 2 $opt "$file" | awk '{ printf "%.2f", $1 + $2 }')
	fi
	echo "$name: identical output ($a)"
	echo "  --jobs 1 wall:$w1 s (best $b1, median $m1; CPU $c1 s)"
	echo "  --jobs 2 wall:$w2 s (best $b2, median $m2; CPU $c2 s)"
	sb=$(echo "$b1 $b2" | awk '{ printf "%.2f", $1 / $2 }')
	sm=$(echo "$m1 $m2" | awk '{ printf "%.2f", $1 / $2 }')
	sp=$(pairs "$w1" "$w2")
	echo "  speed-up of --jobs 2: best ${sb}x, median ${sm}x, median of the pairs ${sp}x (goal 1.8x)"
	echo "figure: jobs2_${mode}_speedup $sp"
	control $mode "$w1" "$w2" "$wi"
done

if [[ $modes == *" parquet "* ]]; then
	# convert --to parquet: the events table and the per-event tables on two
	# threads; the files of --jobs 1 and --jobs 2 compared, then each timed
	# (written to a temporary directory, removed after each run).
	# in memory where there is a tmpfs: a disk's write-back is more noise
	tmp=${TMPDIR:-/tmp}
	[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
	pq=$(mktemp -d "$tmp/tb-jobs-bench.XXXXXX")
	trap 'rm -rf "$pq"' EXIT
	pqconv() { rm -rf "$pq/$1"; "$cli" convert --to parquet --jobs "$2" "$pq/$1" "$file" 2> /dev/null; }
	# the control's copies, each into a directory of its own
	pqpinned() { "$cli" convert --to parquet --jobs 1 "$pq/pin$BASHPID" "$file" 2> /dev/null; }
	pqconv one 1
	pqconv two 2
	diff -r "$pq/one" "$pq/two" > /dev/null ||
		{ echo "jobs_bench: convert --to parquet: --jobs 2 files differ from --jobs 1" >&2; exit 1; }
	rm -rf "$pq/one" "$pq/two"
	w1= w2= wi=
	for r in $(seq "$runs"); do
		w1="$w1 $(wall_of pqconv x 1)"
		w2="$w2 $(wall_of pqconv x 2)"
		[ -z "$cpus" ] || { wi="$wi $(ideal_of pqpinned)"; rm -rf "$pq"/pin*; }
	done
	b1=$(echo $w1 | best); b2=$(echo $w2 | best)
	m1=$(echo $w1 | median); m2=$(echo $w2 | median)
	echo "convert --to parquet: identical files"
	echo "  --jobs 1 wall:$w1 s (best $b1, median $m1)"
	echo "  --jobs 2 wall:$w2 s (best $b2, median $m2)"
	sb=$(echo "$b1 $b2" | awk '{ printf "%.2f", $1 / $2 }')
	sm=$(echo "$m1 $m2" | awk '{ printf "%.2f", $1 / $2 }')
	sp=$(pairs "$w1" "$w2")
	echo "  speed-up of --jobs 2: best ${sb}x, median ${sm}x, median of the pairs ${sp}x (goal 1.8x)"
	echo "figure: jobs2_parquet_speedup $sp"
	control parquet "$w1" "$w2" "$wi"
fi
echo "jobs_bench: load after $(cut -d' ' -f1-3 /proc/loadavg)"
