#!/bin/sh
# Capture a large real trace.dat on this machine for bench/report_large.sh:
#   sh bench/make_large.sh [OUT.dat] [MB]      (root, tracefs, trace-cmd)
# Default OUT is build/bench/large.dat, MB (total ring-buffer size over
# all CPUs) 400.  An existing OUT is reused: delete it to capture again.
#
# How: the top-level tracefs buffer is sized to MB / ncpu per CPU with
# overwrite off (so nothing is lost from the start of the capture), the
# sched, irq, timer, syscalls, signal, task and workqueue events are
# enabled (the groups of ../shared/samples/sched4k.v7.dat), a busy
# workload (pipes, directory walks, short processes, on every CPU) runs
# until a CPU's buffer is full or 60 s pass, tracing stops, and
# `trace-cmd extract --compression none` writes the buffers (trace.dat
# version 7, as the sample).  The previous tracefs settings (buffer size,
# overwrite, events, tracing_on) are put back.  Disk: OUT only (about MB).
set -eu
cd "$(dirname "$0")/.."
. bench/fill.sh
out=${1:-build/bench/large.dat}
mb=${2:-400}
if [ -s "$out" ]; then
	echo "make_large: reusing $out ($(($(wc -c < "$out") >> 20)) MiB)" >&2
	exit 0
fi
t=/sys/kernel/tracing
# a freshly booted machine may not have tracefs mounted yet
[ -e "$t/tracing_on" ] || mount -t tracefs nodev "$t" 2>/dev/null || true
[ -w "$t/tracing_on" ] || { echo "make_large: needs root and tracefs at $t" >&2; exit 77; }
command -v trace-cmd > /dev/null || { echo "make_large: trace-cmd missing" >&2; exit 77; }
# tracing_on is 1 after boot with nothing recorded: the buffer is in use only
# when events are enabled or a tracer is set
[ -z "$(cat "$t/set_event")" ] && [ "$(cat "$t/current_tracer")" = nop ] ||
	{ echo "make_large: the top-level buffer is in use (set_event or current_tracer): not touching it" >&2; exit 77; }
mkdir -p "$(dirname "$out")"
ncpu=$(nproc)
old_kb=$(cat "$t/buffer_size_kb" | sed 's/[^0-9].*//')
old_ow=$(cat "$t/options/overwrite")
old_on=$(cat "$t/tracing_on")
work=$(mktemp -d "${TMPDIR:-/tmp}/tb-large.XXXXXX")
pids=
restore() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	echo 0 > "$t/tracing_on"
	echo > "$t/set_event"
	echo "$old_ow" > "$t/options/overwrite"
	echo "$old_kb" > "$t/buffer_size_kb"
	echo "$old_on" > "$t/tracing_on"
	rm -rf "$work"
}
trap restore EXIT
trap 'exit 1' INT TERM

per_cpu_kb=$((mb * 1024 / ncpu))
echo 0 > "$t/tracing_on"
echo 0 > "$t/options/overwrite"
echo "$per_cpu_kb" > "$t/buffer_size_kb"
echo > "$t/trace" # clear
for g in sched irq timer syscalls signal task workqueue; do
	echo 1 > "$t/events/$g/enable"
done

# the workload: one busy loop per CPU, mixing syscalls, wake-ups and forks
busy() {
	while :; do
		dd if=/dev/zero bs=512 count=2000 2>/dev/null | cat > /dev/null
		ls -R /usr/include > /dev/null 2>&1
		sh -c 'i=0; while [ $i -lt 50 ]; do i=$((i + 1)); done; true'
	done
}
# stop when one CPU's buffer is about full (entries stop growing) or after 60 s
fill_buffers "$t" "$per_cpu_kb" 95
echo "make_large: workload ran $((s / 2)) s; per-CPU stats:" >&2
for c in $(seq 0 $((ncpu - 1))); do
	echo "  cpu$c: $(tr '\n' ' ' < "$t/per_cpu/cpu$c/stats")" >&2
done
(cd "$work" && trace-cmd extract --compression none -o large.dat > extract.log 2>&1) ||
	{ cat "$work/extract.log" >&2; exit 1; }
mv "$work/large.dat" "$out"
echo "make_large: wrote $out ($(($(wc -c < "$out") >> 20)) MiB)" >&2
