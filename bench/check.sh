#!/bin/bash
# The regression check to run before a change lands:
#   bash bench/check.sh [--runs N] [--record]
# (TB_BENCH_LARGE=0 leaves out bench/report_large.sh and bench/jobs_bench.sh,
# the large capture; TB_BENCH_JOBS=0 only the latter; format_bench's mix_*
# figures need the capture bench/make_mix.sh makes once, as root, and are
# skipped where it cannot)
# Runs every benchmark N times (default 3), takes the median of each
# "figure: NAME VALUE" line they print (all ratios measured inside one
# run: tracebound against libtraceevent / kbuffer / trace-cmd, or against
# its own decoder where no reference exists, so a busy machine moves them
# less than it moves times), prints them beside the figures recorded on
# this machine's kind of CPU (bench/figures/MODEL-fF-mM.txt, MODEL the CPU's
# model name in lower case, dashes for the rest), and fails (exit 1) when
# one dropped by more than TB_BENCH_TOLERANCE percent (default 10) or is
# missing.  Higher is better for every figure.  --record writes the
# medians there instead (commit it with the change that moved them).
# The ratios do not carry over from one CPU to another: the same code
# walked large records 4.4x as fast as kbuffer on an AMD EPYC and 2.3-2.6x
# on an Intel Xeon (Sapphire Rapids class), both as KVM guests.
#
# The machine is shared: run it when it is quiet (the load average is
# printed and recorded), and rerun before believing a failure.  It takes
# about a minute per run on 2 cores.
#
#   bash bench/check.sh --against REV   (e.g. --against main)
# judges the working tree against commit REV measured in the same rounds
# instead of against the recorded figures: REV is built in a temporary
# worktree, and each round runs REV's benchmarks, then ours.  When the
# machine's speed wanders (this one's did by 30% within minutes), that is
# the comparison to believe: both sides see the same conditions.  It
# takes twice as long.
set -eu
cd "$(dirname "$0")/.."
runs=3
record=0
against=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--record) record=1; shift ;;
	--against) against=$2; shift 2 ;;
	*) echo "usage: bash bench/check.sh [--runs N] [--record | --against REV]" >&2; exit 2 ;;
	esac
done
[ -z "$against" ] || [ "$record" = 0 ] ||
	{ echo "check: --record and --against do not go together" >&2; exit 2; }
tol=${TB_BENCH_TOLERANCE:-10}
model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
family=$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
cpumodel=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
# a hypervisor may name different CPUs alike: two machines here both said
# "AMD EPYC", and one walked large records 4.4x as fast as kbuffer, the
# other (family 26, model 2: Zen 5) 8.3x.  The family and model number
# tell them apart, MODEL-fFAMILY-mMODEL.txt; MODEL.txt (recorded before
# the split) is used where no such file is
stem=bench/figures/$(echo "${model:-unknown}" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
figures=$stem-f${family:-0}-m${cpumodel:-0}.txt
[ "$record" = 1 ] || [ -f "$figures" ] || [ ! -f "$stem.txt" ] || figures=$stem.txt
# before any benchmark runs: is there anything to judge against?
[ "$record" = 1 ] || [ -n "$against" ] || [ -f "$figures" ] || {
	echo "check: no figures recorded on this CPU ($model: $figures; there are" \
		"$(cd bench/figures && ls | tr '\n' ' '))." \
		"Run with --record first, or judge against a commit with --against REV" >&2
	exit 2
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-bench-check.XXXXXX")
here=$PWD
trees=$here
if [ -n "$against" ]; then
	rev=$(git rev-parse --verify "$against^{commit}") ||
		{ echo "check: no commit $against" >&2; exit 2; }
	git worktree add -q --detach "$tmp/base" "$rev"
	# what the benchmarks find beside the tree: the samples, the capture
	ln -s "$(cd .. && pwd)/shared" "$tmp/shared"
	mkdir -p "$tmp/base/build/bench" "$tmp/out-base"
	[ ! -s build/bench/large.dat ] ||
		ln -s "$here/build/bench/large.dat" "$tmp/base/build/bench/large.dat"
	trees="$tmp/base $here"
fi
trap 'cd "$here"; [ -z "$against" ] || git worktree remove --force "$tmp/base" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out"
out_of() { if [ "$1" = "$here" ]; then echo "$tmp/out"; else echo "$tmp/out-base"; fi; }

# the merge of N CPUs (issue 37; bench/merge_bench.c): in trees that have it
merge_of() { [ ! -f "$1/bench/merge_bench.c" ] || echo merge_bench; }
for t in $trees; do
	(cd "$t" && make -s -j"$(nproc)" all build/bench/format_bench build/bench/kbuf_bench \
		build/bench/render_bench build/bench/pmclog_bench \
		$(merge_of "$t" | sed 's|^|build/bench/|') >&2)
done
# the mix of events format_bench walks besides raw-sched4k (issue 38):
# captured once into build/bench/mix16k, reused by later runs
mix=ok
rc=0
sh bench/make_mix.sh > "$tmp/make_mix.log" 2>&1 || rc=$?
case $rc in
0) ;;
77) echo "check: the mix skipped (no capture and none can be made here)" >&2; mix=skip ;;
*) cat "$tmp/make_mix.log" >&2; echo "check: make_mix failed" >&2; exit 1 ;;
esac
[ -z "$against" ] || [ "$mix" = skip ] ||
	ln -s "$here/build/bench/mix16k" "$tmp/base/build/bench/mix16k"
load_before=$(cut -d' ' -f1 /proc/loadavg)
for r in $(seq "$runs"); do
	echo "check: run $r of $runs" >&2
	for t in $trees; do
		o=$(out_of "$t")
		cd "$t"
		for b in format_bench kbuf_bench render_bench $(merge_of "$t"); do
			a=; [ "$b" != merge_bench ] || a=--figures
			TB_SRCDIR=$PWD nice -n 5 "build/bench/$b" $a > "$o/$b.$r" 2>&1 ||
				{ cat "$o/$b.$r" >&2; echo "check: $t: $b failed" >&2; exit 1; }
		done
		nice -n 5 bash bench/pmclog_print_bench.sh 128 3 > "$o/pmclog.$r" 2>&1 ||
			{ cat "$o/pmclog.$r" >&2; echo "check: $t: pmclog_print_bench failed" >&2; exit 1; }
		cd "$here"
	done
done
# report on a large real capture against trace-cmd (issue 17, bench/report_large.sh):
# once, not per run, as trace-cmd takes about 15 s a run on it; skipped
# (not failed) where no capture can be made (no root, tracefs or
# trace-cmd), or with TB_BENCH_LARGE=0
large=skip
if [ "${TB_BENCH_LARGE:-1}" != 0 ]; then
	for t in $trees; do
		o=$(out_of "$t")
		rc=0
		(cd "$t" && bash bench/report_large.sh) > "$o/report_large.1" 2>&1 || rc=$?
		case $rc in
		0) large=ok; grep -v '^figure:' "$o/report_large.1" >&2 ;;
		77) echo "check: report_large skipped (no large capture and none can be made here)" >&2
		    rm -f "$o/report_large.1"; large=skip; break ;;
		*) cat "$o/report_large.1" >&2; echo "check: $t: report_large failed" >&2; exit 1 ;;
		esac
	done
fi
# --jobs 2 against --jobs 1 on the same capture (bench/jobs_bench.sh): once;
# on a machine with one core, or with TB_BENCH_JOBS=0, skipped
jobs=skip
if [ "${TB_BENCH_JOBS:-1}" != 0 ] && [ "$large" = ok ] && [ "$(nproc)" -ge 2 ]; then
	for t in $trees; do
		o=$(out_of "$t")
		(cd "$t" && RUNS=3 bash bench/jobs_bench.sh) > "$o/jobs.1" 2>&1 ||
			{ cat "$o/jobs.1" >&2; echo "check: $t: jobs_bench failed" >&2; exit 1; }
		grep -v '^figure:' "$o/jobs.1" >&2
	done
	jobs=ok
fi
load_after=$(cut -d' ' -f1 /proc/loadavg)

# NAME MEDIAN, one a line, sorted by name, of the outputs in directory $1
medians() {
	cat "$1"/*.* | awk '$1 == "figure:" {print $2, $3}' | sort -k1,1 -k2,2g |
		awk '{ if ($1 != name) { if (name != "") out(); name = $1; n = 0 } v[++n] = $2 }
		     function out() { printf "%s %s\n", name, (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
		     END { if (name != "") out() }'
}
medians "$tmp/out" > "$tmp/now"
if [ -n "$against" ]; then
	{
		echo "# $against ($rev) measured in the same rounds"
		medians "$tmp/out-base"
	} > "$tmp/base-figures"
	figures=$tmp/base-figures
fi

if [ "$record" = 1 ]; then
	{
		echo "# bench/check.sh --record: medians of $runs runs, $(date -u +%Y-%m-%d)"
		echo "# machine: $(nproc) cores, $model"
		echo "# load average before/after: $load_before / $load_after"
		echo "# NAME VALUE (higher is better; bench/check.sh fails on a drop of more than ${tol}%)"
		cat "$tmp/now"
	} > "$figures"
	echo "check: recorded $(wc -l < "$tmp/now") figures in $figures"
	cat "$tmp/now"
	exit 0
fi

if [ -n "$against" ]; then
	echo "check: medians of $runs runs (load average $load_before -> $load_after) against $against measured in the same rounds, tolerance ${tol}%"
	printf '  %-38s %10s %10s %8s\n' figure "$against" now change
else
	echo "check: medians of $runs runs (load average $load_before -> $load_after) against $figures, tolerance ${tol}%"
	printf '  %-38s %10s %10s %8s\n' figure recorded now change
fi
fail=0
while read -r name was; do
	case $name in '#'*|'') continue ;; esac
	now=$(awk -v n="$name" '$1 == n {print $2}' "$tmp/now")
	if [ -z "$now" ] && { { [ "$large" = skip ] && case $name in report_large_*) true ;; *) false ;; esac; } ||
			     { [ "$mix" = skip ] && case $name in mix_*) true ;; *) false ;; esac; } ||
			     { [ "$jobs" = skip ] && case $name in jobs2_*) true ;; *) false ;; esac; }; }; then
		printf '  %-38s %10s %10s %8s  (skipped)\n' "$name" "$was" "-" "-"
		continue
	fi
	if [ -z "$now" ]; then
		printf '  %-38s %10s %10s %8s  MISSING\n' "$name" "$was" "-" "-"
		fail=1
		continue
	fi
	verdict=$(awk -v a="$was" -v b="$now" -v t="$tol" 'BEGIN {
		c = a > 0 ? (b - a) / a * 100 : 0
		printf "%+7.1f%% %s", c, (c < -t) ? " DROPPED" : ""
	}')
	printf '  %-38s %10s %10s %s\n' "$name" "$was" "$now" "$verdict"
	case $verdict in *DROPPED) fail=1 ;; esac
done < <(grep -v '^#' "$figures")
# figures measured now but not recorded: shown, not judged
while read -r name now; do
	grep -q "^$name " "$figures" || printf '  %-38s %10s %10s  (new: not recorded)\n' "$name" "-" "$now"
done < "$tmp/now"
if [ "$fail" = 1 ]; then
	echo "check: FAILED: a figure dropped by more than ${tol}% (or is missing); rerun when the machine is quiet before believing it"
	exit 1
fi
echo "check: ok"
