#!/bin/sh
# Take a fresh trace_pipe_raw capture for the differential test:
#   sh ci/capture-raw.sh [OUTDIR] [SUBBUF_KB] [abs]
# writes OUTDIR/cpuN.raw, OUTDIR/header_page and OUTDIR/subbuf_kb
# (default build/capture-raw, 4 KiB sub-buffers).  With "abs", a hist
# trigger on common_timestamp switches the buffer to absolute time stamps
# so the pages carry TIME_STAMP records.  Works in a private tracefs
# instance (removed at the end), so the global buffer and other users are
# left alone.  Needs root and tracefs; exits 77 (skip) without them.
set -u
out=${1:-build/capture-raw}
kb=${2:-4}
mode=${3:-}
tr=/sys/kernel/tracing
[ -d "$tr/instances" ] || tr=/sys/kernel/debug/tracing
if [ "$(id -u)" != 0 ] || [ ! -w "$tr/instances" ]; then
	echo "capture-raw: no writable tracefs instances (need root)" >&2
	exit 77
fi
inst=$tr/instances/tb-capture-$$
mkdir "$inst" || exit 77
cleanup() {
	echo 0 > "$inst/tracing_on" 2>/dev/null
	if [ -n "$mode" ]; then
		echo '!hist:keys=common_pid:ts0=common_timestamp.usecs' \
			> "$inst/events/sched/sched_waking/trigger" 2>/dev/null
	fi
	echo 0 > "$inst/events/enable" 2>/dev/null
	rmdir "$inst" 2>/dev/null
}
trap cleanup EXIT INT TERM
echo 0 > "$inst/tracing_on"
echo "$kb" > "$inst/buffer_subbuf_size_kb" 2>/dev/null || kb=$(cat "$inst/buffer_subbuf_size_kb")
kb=$(cat "$inst/buffer_subbuf_size_kb")
echo 512 > "$inst/buffer_size_kb"
echo 1 > "$inst/events/sched/enable"
echo 1 > "$inst/events/syscalls/enable" 2>/dev/null
if [ "$mode" = abs ]; then
	echo 'hist:keys=common_pid:ts0=common_timestamp.usecs' \
		> "$inst/events/sched/sched_waking/trigger" || exit 77
fi
echo 1 > "$inst/tracing_on"
# A little work: process creation, file system walks, sleeps.
for i in 1 2 3 4 5; do ls -R /usr/include > /dev/null 2>&1; sleep 0.05; done
echo 0 > "$inst/tracing_on"
rm -rf "$out"
mkdir -p "$out"
cp "$inst/events/header_page" "$out/header_page"
echo "$kb" > "$out/subbuf_kb"
for d in "$inst"/per_cpu/cpu*; do
	n=${d##*/cpu}
	dd if="$d/trace_pipe_raw" of="$out/cpu$n.raw" bs=$((kb * 1024)) \
		iflag=nonblock status=none 2>/dev/null
	[ -s "$out/cpu$n.raw" ] || rm -f "$out/cpu$n.raw"
done
ls "$out"/cpu*.raw > /dev/null 2>&1 || { echo "capture-raw: nothing captured" >&2; exit 77; }
echo "capture-raw: $(cat "$out"/cpu*.raw | wc -c) bytes of ${kb} KiB sub-buffers in $out"
