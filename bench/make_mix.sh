#!/bin/sh
# Capture a broad mix of events in 16 KiB sub-buffers for bench/format_bench
# (the field path on a realistic mix, issue 38):
#   sh bench/make_mix.sh [OUTDIR] [MB]      (root, tracefs)
# Default OUTDIR build/bench/mix16k, MB (ring buffer over all CPUs) 48.
# An existing OUTDIR/done is reused: delete the directory to capture again.
#
# What OUTDIR holds (what format_bench reads, as tests/data/raw-sched4k):
#   cpuN.raw        the raw sub-buffers read from per_cpu/cpuN/trace_pipe_raw
#   subbuf_kb       16
#   header_page, header_event
#   formats/SYSTEM/EVENT/format   every format of the enabled groups
#
# How: a private tracefs instance (instances/tb-mix-PID, removed at the
# end; the top-level buffer and other users' instances are not touched),
# buffer_subbuf_size_kb=16, overwrite off (nothing lost from the start),
# the kmem, sched, irq, timer and syscalls groups on.  The workload mixes
# what gives records of many sizes and many ids: syscalls of every kind
# (reads and writes of many sizes, opens, stats, directory walks, forks,
# sleeps for timers), allocations (kmem), wake-ups and switches (sched).
# It runs until one CPU's buffer is about full or 60 s pass.
set -eu
cd "$(dirname "$0")/.."
. bench/fill.sh
out=${1:-build/bench/mix16k}
mb=${2:-48}
if [ -f "$out/done" ]; then
	echo "make_mix: reusing $out ($(du -sm "$out" | cut -f1) MiB)" >&2
	exit 0
fi
t=/sys/kernel/tracing
[ -e "$t/instances" ] || mount -t tracefs nodev "$t" 2>/dev/null || true
[ -d "$t/instances" ] && [ -w "$t/instances" ] ||
	{ echo "make_mix: needs root and tracefs at $t" >&2; exit 77; }
inst=$t/instances/tb-mix-$$
mkdir "$inst" 2>/dev/null || { echo "make_mix: cannot create $inst" >&2; exit 77; }
[ -e "$inst/buffer_subbuf_size_kb" ] ||
	{ rmdir "$inst"; echo "make_mix: no buffer_subbuf_size_kb (kernel before 6.8)" >&2; exit 77; }
ncpu=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/tb-mix.XXXXXX")
pids=
restore() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	echo 0 > "$inst/tracing_on" 2>/dev/null || true
	rmdir "$inst" 2>/dev/null || true
	rm -rf "$work"
}
trap restore EXIT
trap 'exit 1' INT TERM

per_cpu_kb=$((mb * 1024 / ncpu))
echo 0 > "$inst/tracing_on"
# a kernel that will not change the sub-buffer size (a sandboxed guest
# answers EPERM) is traced with its 4 KiB ones, and bench/repage.py lays
# the same events out in 16 KiB sub-buffers afterwards
sub=16
echo 16 > "$inst/buffer_subbuf_size_kb" 2>/dev/null || sub=4
echo 0 > "$inst/options/overwrite"
echo "$per_cpu_kb" > "$inst/buffer_size_kb"
for g in kmem sched irq timer syscalls; do
	echo 1 > "$inst/events/$g/enable"
done

# the workload: one loop per CPU, each step a different kind of syscall
# and record size
mkdir -p "$work/files"
busy() {
	n=0
	while :; do
		n=$((n + 1))
		for bs in 64 700 4096 65536; do
			dd if=/dev/zero of="$work/files/f$n" bs=$bs count=200 2>/dev/null
			dd if="$work/files/f$n" bs=$((bs / 2 + 1)) 2>/dev/null | cat > /dev/null
		done
		rm -f "$work/files/f$n"
		ls -lR /usr/include/linux > /dev/null 2>&1
		find /usr/lib -maxdepth 2 -name '*.so*' -newer /etc/hostname > /dev/null 2>&1
		stat /etc/* > /dev/null 2>&1
		sh -c 'i=0; while [ $i -lt 30 ]; do i=$((i + 1)); done; sleep 0.001' &
		wait
		date > /dev/null
		head -c 100000 /dev/urandom | sort > /dev/null
	done
}
fill_buffers "$inst" "$per_cpu_kb" 90
echo "make_mix: workload ran $((s / 2)) s" >&2

mkdir -p "$work/out"
cp "$inst/events/header_page" "$inst/events/header_event" "$work/out/"
echo 16 > "$work/out/subbuf_kb"
for g in kmem sched irq timer syscalls; do
	for d in "$inst/events/$g"/*/; do
		[ -f "$d/format" ] || continue
		e=$(basename "$d")
		mkdir -p "$work/out/formats/$g/$e"
		cat "$d/format" > "$work/out/formats/$g/$e/format"
	done
done
c=0
while [ $c -lt "$ncpu" ]; do
	# non-blocking: the read stops (EAGAIN) when the buffer is empty;
	# each read is one whole sub-buffer
	dd if="$inst/per_cpu/cpu$c/trace_pipe_raw" of="$work/cpu$c.raw" bs=$((sub * 1024)) \
		iflag=nonblock 2>/dev/null || true
	if [ $sub = 16 ]; then
		mv "$work/cpu$c.raw" "$work/out/cpu$c.raw"
	else
		python3 bench/repage.py 16384 "$work/cpu$c.raw" "$work/out/cpu$c.raw"
		echo "traced in 4 KiB sub-buffers, laid out in 16 KiB by bench/repage.py" \
			> "$work/out/origin"
	fi
	size=$(wc -c < "$work/out/cpu$c.raw")
	[ $((size % 16384)) = 0 ] ||
		{ echo "make_mix: cpu$c.raw is $size bytes, not whole sub-buffers" >&2; exit 1; }
	echo "  cpu$c: $((size / 16384)) sub-buffers" >&2
	c=$((c + 1))
done
rm -rf "$out"
mkdir -p "$(dirname "$out")"
mv "$work/out" "$out"
touch "$out/done"
echo "make_mix: wrote $out ($(du -sm "$out" | cut -f1) MiB)" >&2
