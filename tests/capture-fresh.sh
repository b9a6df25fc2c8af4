#!/bin/sh
# Capture a fresh trace_pipe_raw sample for the field differential test,
# in a tracefs instance of its own (the global buffer and other users'
# settings are left alone).  Run as root on a machine with tracefs:
#
#   sh tests/capture-fresh.sh OUTDIR [EVENT-GROUPS...]
#   TB_FRESH_DIR=OUTDIR make check     # every field of every record vs libtraceevent
#
# OUTDIR receives cpuN.raw, header_page, subbuf_kb and events/ (a copy of
# every format file, so the sample stays decodable after a reboot).
set -eu
out=$1
shift
groups=${*:-sched syscalls irq timer workqueue signal task}
tfs=/sys/kernel/tracing
inst=$tfs/instances/tb-fresh-$$
mkdir -p "$out"
mkdir "$inst"
trap 'echo 0 > "$inst/tracing_on" 2>/dev/null; rmdir "$inst" 2>/dev/null || true' EXIT
for g in $groups; do
	[ -d "$inst/events/$g" ] && echo 1 > "$inst/events/$g/enable"
done
echo 1 > "$inst/tracing_on"
# a little of everything: processes, files, signals, sleeps
for i in 1 2 3; do
	ls -la /usr/bin > /dev/null
	sh -c 'kill -USR1 $$ 2>/dev/null' 2>/dev/null || true
	sleep 0.05
done
echo 0 > "$inst/tracing_on"
kb=$(cat "$inst/buffer_subbuf_size_kb" 2>/dev/null || echo 4)
echo "$kb" > "$out/subbuf_kb"
cp "$tfs/events/header_page" "$tfs/events/header_event" "$out/"
for d in "$inst"/per_cpu/cpu*; do
	n=${d##*/cpu}
	dd if="$d/trace_pipe_raw" of="$out/cpu$n.raw" bs=$((kb * 1024)) iflag=nonblock 2>/dev/null || true
done
# the formats, as text files
(cd "$tfs/events" && find . -name format) | while read -r f; do
	mkdir -p "$out/events/${f%/format}"
	cat "$tfs/events/$f" > "$out/events/$f"
done
ls -la "$out"
