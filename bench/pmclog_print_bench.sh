#!/bin/bash
# `tracebound pmclog` printing speed, text and JSON, output to /dev/null:
#   [JOBS=J] bash bench/pmclog_print_bench.sh [MIB] [RUNS]
# Builds its own input: a synthetic amd64 system-wide sampling log of about
# MIB MiB (default 256; callchains of 1..32 PCs, half kernel, half user,
# among forks, execs, maps and exits) written by tests/support/pmclog_writer.c
# through `pmclog_bench --write`.  libpmc is FreeBSD-only, so there is no
# reference printer on this machine; the yardstick run in the same rounds is
# the library decoding the same file read the same way and printing nothing
# (`pmclog_bench --decode`).  Each round runs the three once, interleaved;
# the figures are medians over RUNS rounds (default 5) of CPU time
# (user+sys: the machine is shared, wall time is also shown) for one
# thread (--jobs 1), and of wall time for --jobs J (default 2: the
# records formatted on J threads, written in order), which is what a user
# waits for; its CPU time shows what the threads cost.
# Goal (issue 17): >= 1 GB/s of input, text and JSON.
# Prints "figure: NAME VALUE" lines for bench/check.sh (higher is better).
set -eu
cd "$(dirname "$0")/.."
mib=${1:-256}
runs=${2:-5}
jobs=${JOBS:-2}
cli=${CLI:-build/tracebound}
gen=build/bench/pmclog_bench
make -s "$cli" "$gen" >&2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-pmclog-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log=$tmp/sampling.pmclog
"$gen" --write "$log" "$mib"
size=$(stat -c %s "$log")
cat "$log" > /dev/null # into the page cache

TIMEFORMAT='%3R %3U %3S'
one() { # cmd...: "wall cpu" of one run, output to /dev/null
	local t
	t=$( { time "$@" > /dev/null 2> /dev/null; } 2>&1 ) ||
		{ echo "pmclog_print_bench: $* failed" >&2; exit 1; }
	set -- $t
	awk -v w="$1" -v u="$2" -v s="$3" 'BEGIN {printf "%.3f %.3f\n", w, u + s}'
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

: > "$tmp/dec"; : > "$tmp/txt"; : > "$tmp/json"; : > "$tmp/jtxt"; : > "$tmp/jjson"
for _ in $(seq "$runs"); do
	one "$gen" --decode "$log" >> "$tmp/dec"
	one "$cli" pmclog --jobs 1 "$log" >> "$tmp/txt"
	one "$cli" pmclog --jobs 1 --json "$log" >> "$tmp/json"
	one "$cli" pmclog --jobs "$jobs" "$log" >> "$tmp/jtxt"
	one "$cli" pmclog --jobs "$jobs" --json "$log" >> "$tmp/jjson"
done
for k in dec txt json jtxt jjson; do
	eval "${k}_wall=\$(cut -d' ' -f1 < \"$tmp/$k\" | median)"
	eval "${k}_cpu=\$(cut -d' ' -f2 < \"$tmp/$k\" | median)"
done
mbs() { awk -v n="$size" -v t="$1" 'BEGIN {printf "%.0f", n / t / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
echo "pmclog printing: $((size >> 20)) MiB sampling log, $runs rounds, medians, output to /dev/null"
printf '  %-34s cpu %6ss  %5s MB/s   (wall %6ss)\n' \
	"library decode only (yardstick)" "$dec_cpu" "$(mbs "$dec_cpu")" "$dec_wall" \
	"tracebound pmclog" "$txt_cpu" "$(mbs "$txt_cpu")" "$txt_wall" \
	"tracebound pmclog --json" "$json_cpu" "$(mbs "$json_cpu")" "$json_wall"
printf '  %-34s wall %5ss  %5s MB/s   (cpu %6ss)\n' \
	"tracebound pmclog --jobs $jobs" "$jtxt_wall" "$(mbs "$jtxt_wall")" "$jtxt_cpu" \
	"tracebound pmclog --jobs $jobs --json" "$jjson_wall" "$(mbs "$jjson_wall")" "$jjson_cpu"
echo "  (goal: >= 1000 MB/s of input, text and JSON)"
echo "figure: pmclog_text_MBps $(mbs "$txt_cpu")"
echo "figure: pmclog_json_MBps $(mbs "$json_cpu")"
echo "figure: pmclog_text_jobs${jobs}_wall_MBps $(mbs "$jtxt_wall")"
echo "figure: pmclog_json_jobs${jobs}_wall_MBps $(mbs "$jjson_wall")"
# decode time / print time: the share of the decoder's speed the printer
# keeps, measured in the same rounds, so less sensitive to a loaded machine
echo "figure: pmclog_text_vs_decode $(ratio "$dec_cpu" "$txt_cpu")"
echo "figure: pmclog_json_vs_decode $(ratio "$dec_cpu" "$json_cpu")"
