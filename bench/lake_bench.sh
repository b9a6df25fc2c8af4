#!/bin/sh
# Many small uploads into one dataset (issue 41): 50 uploads of raw dumps
# (the bundled sched4k dumps cut to 2k and 5k pages of their two CPUs, k =
# 1..50: 28 KiB to 1.4 MiB each, every one another trace id), converted one
# after the other into one dataset.  Prints the time per upload (mean,
# median, slowest), the dataset's size against the inputs' and the time
# to convert all of them again (each found already there: hashing only).
#
#   bench/lake_bench.sh          after `make`; not part of CI
#   N=200 bench/lake_bench.sh    more uploads (k wraps at 72)
set -eu
cd "$(dirname "$0")/.."
cli=${CLI:-build/tracebound}
[ -x "$cli" ] || make -s -j2 all
n=${N:-50}
tmp=${TMPDIR:-/tmp}/tb-lake-bench
rm -rf "$tmp"
mkdir -p "$tmp/up"
tar xzf tests/data/formats-6.18.tar.gz -C "$tmp"
raw=tests/data/raw-sched4k
now() { date +%s%N; }
k=1
while [ "$k" -le "$n" ]; do
	j=$(( (k - 1) % 72 + 1 ))
	mkdir -p "$tmp/up/$k"
	head -c $((2 * j * 4096)) $raw/cpu0.raw > "$tmp/up/$k/cpu0.raw"
	head -c $((5 * j * 4096 + (k - j) / 72)) $raw/cpu1.raw > "$tmp/up/$k/cpu1.raw"
	k=$((k + 1))
done
times=$tmp/times
: > "$times"
k=1
t0=$(now)
while [ "$k" -le "$n" ]; do
	a=$(now)
	"$cli" convert --to parquet --jobs 1 --events "$tmp/events" --header-page $raw/header_page \
		"$tmp/ds" "$tmp/up/$k/cpu0.raw" "$tmp/up/$k/cpu1.raw" > /dev/null
	echo $(( ($(now) - a) / 1000000 )) >> "$times"
	k=$((k + 1))
done
total=$(( ($(now) - t0) / 1000000 ))
k=1
t0=$(now)
while [ "$k" -le "$n" ]; do
	"$cli" convert --to parquet --events "$tmp/events" --header-page $raw/header_page \
		"$tmp/ds" "$tmp/up/$k/cpu0.raw" "$tmp/up/$k/cpu1.raw" > /dev/null 2>&1
	k=$((k + 1))
done
again=$(( ($(now) - t0) / 1000000 ))
in_b=$(du -sb "$tmp/up" | cut -f1)
ds_b=$(du -sb "$tmp/ds" | cut -f1)
ds_disk=$(du -sk "$tmp/ds" | cut -f1)
files=$(find "$tmp/ds" -name '*.parquet' | wc -l)
parts=$(ls "$tmp/ds" | grep -c '^trace_id=')
sort -n "$times" > "$times.s"
med=$(sed -n "$(( (n + 1) / 2 ))p" "$times.s")
max=$(tail -n 1 "$times.s")
echo "uploads: $n ($parts partitions, $files Parquet files)"
echo "figure: lake_ms_per_upload_mean $((total / n))"
echo "figure: lake_ms_per_upload_median $med"
echo "figure: lake_ms_per_upload_max $max"
echo "figure: lake_input_bytes $in_b"
echo "figure: lake_dataset_bytes $ds_b (on disk ${ds_disk} KiB)"
awk -v a="$ds_b" -v b="$in_b" 'BEGIN { printf "figure: lake_dataset_over_input %.3f\n", a / b }'
echo "figure: lake_ms_per_upload_again $((again / n))"
# wall times: the machine's load says how much of them was waiting
echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
