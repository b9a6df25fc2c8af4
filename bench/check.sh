#!/bin/bash
# The regression check to run before a change lands:
#   bash bench/check.sh [--runs N] [--record]
# (TB_BENCH_LARGE=0 leaves out bench/report_large.sh and bench/jobs_bench.sh,
# the large capture; TB_BENCH_JOBS=0 only the latter)
# Runs every benchmark N times (default 3), takes the median of each
# "figure: NAME VALUE" line they print (all ratios measured inside one
# run: tracebound against libtraceevent / kbuffer / trace-cmd, or against
# its own decoder where no reference exists, so a busy machine moves them
# less than it moves times), prints them beside the figures recorded in
# bench/figures.txt, and fails (exit 1) when one dropped by more than
# TB_BENCH_TOLERANCE percent (default 10) or is missing.  Higher is
# better for every figure.  --record writes the medians to
# bench/figures.txt instead (commit it with the change that moved them).
#
# The machine is shared: run it when it is quiet (the load average is
# printed and recorded), and rerun before believing a failure.  It takes
# about a minute per run on 2 cores.
set -eu
cd "$(dirname "$0")/.."
runs=3
record=0
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--record) record=1; shift ;;
	*) echo "usage: bash bench/check.sh [--runs N] [--record]" >&2; exit 2 ;;
	esac
done
tol=${TB_BENCH_TOLERANCE:-10}
figures=bench/figures.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-bench-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

make -s all build/bench/format_bench build/bench/kbuf_bench build/bench/render_bench \
	build/bench/pmclog_bench >&2
load_before=$(cut -d' ' -f1 /proc/loadavg)
for r in $(seq "$runs"); do
	echo "check: run $r of $runs" >&2
	for b in format_bench kbuf_bench render_bench; do
		TB_SRCDIR=$PWD nice -n 5 "build/bench/$b" > "$tmp/$b.$r" 2>&1 ||
			{ cat "$tmp/$b.$r" >&2; echo "check: $b failed" >&2; exit 1; }
	done
	nice -n 5 bash bench/pmclog_print_bench.sh 128 3 > "$tmp/pmclog.$r" 2>&1 ||
		{ cat "$tmp/pmclog.$r" >&2; echo "check: pmclog_print_bench failed" >&2; exit 1; }
done
# report on a large real capture against trace-cmd (issue 17, bench/report_large.sh):
# once, not per run, as trace-cmd takes about 15 s a run on it; skipped
# (not failed) where no capture can be made (no root, tracefs or
# trace-cmd), or with TB_BENCH_LARGE=0
large=skip
if [ "${TB_BENCH_LARGE:-1}" != 0 ]; then
	rc=0
	bash bench/report_large.sh > "$tmp/report_large.1" 2>&1 || rc=$?
	case $rc in
	0) large=ok; grep -v '^figure:' "$tmp/report_large.1" >&2 ;;
	77) echo "check: report_large skipped (no large capture and none can be made here)" >&2
	    rm -f "$tmp/report_large.1" ;;
	*) cat "$tmp/report_large.1" >&2; echo "check: report_large failed" >&2; exit 1 ;;
	esac
fi
# --jobs 2 against --jobs 1 on the same capture (bench/jobs_bench.sh): once;
# on a machine with one core, or with TB_BENCH_JOBS=0, skipped
jobs=skip
if [ "${TB_BENCH_JOBS:-1}" != 0 ] && [ "$large" = ok ] && [ "$(nproc)" -ge 2 ]; then
	RUNS=3 bash bench/jobs_bench.sh > "$tmp/jobs.1" 2>&1 ||
		{ cat "$tmp/jobs.1" >&2; echo "check: jobs_bench failed" >&2; exit 1; }
	jobs=ok
	grep -v '^figure:' "$tmp/jobs.1" >&2
fi
load_after=$(cut -d' ' -f1 /proc/loadavg)

# NAME MEDIAN, one a line, sorted by name
cat "$tmp"/*.* | awk '$1 == "figure:" {print $2, $3}' | sort -k1,1 -k2,2g |
	awk '{ if ($1 != name) { if (name != "") out(); name = $1; n = 0 } v[++n] = $2 }
	     function out() { printf "%s %s\n", name, (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
	     END { if (name != "") out() }' > "$tmp/now"

if [ "$record" = 1 ]; then
	{
		echo "# bench/check.sh --record: medians of $runs runs, $(date -u +%Y-%m-%d)"
		echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
		echo "# load average before/after: $load_before / $load_after"
		echo "# NAME VALUE (higher is better; bench/check.sh fails on a drop of more than ${tol}%)"
		cat "$tmp/now"
	} > "$figures"
	echo "check: recorded $(wc -l < "$tmp/now") figures in $figures"
	cat "$tmp/now"
	exit 0
fi

[ -f "$figures" ] || { echo "check: no $figures (run with --record first)" >&2; exit 2; }
echo "check: medians of $runs runs (load average $load_before -> $load_after) against $figures, tolerance ${tol}%"
printf '  %-38s %10s %10s %8s\n' figure recorded now change
fail=0
while read -r name was; do
	case $name in '#'*|'') continue ;; esac
	now=$(awk -v n="$name" '$1 == n {print $2}' "$tmp/now")
	if [ -z "$now" ] && { { [ "$large" = skip ] && case $name in report_large_*) true ;; *) false ;; esac; } ||
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
