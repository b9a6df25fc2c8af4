#!/bin/sh
# Fresh trace.dat captures for the report differential test:
#   sh ci/capture-dat.sh [--keep] [OUTDIR]
# make check-run captures before the suites start (the report and
# reportopts suites read the files side by side, so no test may capture
# while another reads); with --keep (TB_KEEP_CAPTURES=1 for check-run) a
# finished capture in OUTDIR is used again: CI's sanitizer and coverage runs
# read the gcc run's files, whose trace-cmd output tests/oracle has kept.
# For each sub-buffer size (4, 8 and 64 KiB) and a few event sets (the
# last: every event of the kernel), a
# private tracefs instance records a short workload into a small buffer
# (so it overflows and drops are reported), then `trace-cmd extract -B`
# writes OUTDIR/<events>-<kb>k.dat.  The instance is removed at the end.
# Needs root, tracefs and trace-cmd; exits 77 (skip) without them.
set -u
keep=0
[ "${1:-}" = --keep ] && { keep=1; shift; }
out=${1:-build/capture-dat}
if [ "$keep" = 1 ] && [ -f "$out/.captured" ]; then
	echo "capture-dat: $(cat "$out/.captured") files kept in $out"
	exit 0
fi
tr=/sys/kernel/tracing
[ -d "$tr/instances" ] || tr=/sys/kernel/debug/tracing
if [ "$(id -u)" != 0 ] || [ ! -w "$tr/instances" ] || ! command -v trace-cmd >/dev/null 2>&1; then
	echo "capture-dat: need root, writable tracefs instances and trace-cmd" >&2
	exit 77
fi
rm -rf "$out"
mkdir -p "$out"
made=0
for kb in 4 8 64; do
	for set in sched sched,syscalls,irq timer,workqueue,signal,task all; do
		name=tb-dat-$$-$kb
		inst=$tr/instances/$name
		mkdir "$inst" 2>/dev/null || continue
		echo 0 > "$inst/tracing_on"
		echo "$kb" > "$inst/buffer_subbuf_size_kb" 2>/dev/null
		got=$(cat "$inst/buffer_subbuf_size_kb" 2>/dev/null || echo 4)
		# a few sub-buffers per CPU only: the workload overflows them
		echo $((got * 4)) > "$inst/buffer_size_kb"
		if [ "$set" = all ]; then
			echo 1 > "$inst/events/enable" 2>/dev/null
		else
			for ev in $(echo "$set" | tr , ' '); do
				echo 1 > "$inst/events/$ev/enable" 2>/dev/null
			done
		fi
		echo 1 > "$inst/tracing_on"
		for i in 1 2 3; do
			ls -R /usr/include > /dev/null 2>&1
			sh -c 'kill -0 $$; sleep 0.02' 2>/dev/null
		done
		echo 0 > "$inst/tracing_on"
		file="$out/$(echo "$set" | tr , -)-${got}k.dat"
		# the sched set uncompressed, the others with trace-cmd's default
		# (zstd) compression
		comp=
		[ "$set" = sched ] && comp="--compression none"
		# shellcheck disable=SC2086
		trace-cmd extract $comp -B "$name" -o "$file" > /dev/null 2>&1 && made=$((made + 1))
		# extract may remove the instance itself
		if [ -d "$inst" ]; then
			echo 0 > "$inst/events/enable" 2>/dev/null
			rmdir "$inst" 2>/dev/null
		fi
	done
done
[ "$made" -gt 0 ] || { echo "capture-dat: nothing captured" >&2; exit 77; }
# two of them as version 6 too (instance buffers become BUFFER options)
for f in "$out/all-4k.dat" "$out/sched-syscalls-irq-64k.dat"; do
	[ -f "$f" ] && trace-cmd convert -i "$f" -o "${f%.dat}.v6.dat" --file-version 6 \
		> /dev/null 2>&1 && made=$((made + 1))
done
echo "$made" >"$out/.captured"
echo "capture-dat: $made files in $out"
