#!/bin/sh
# Capture the kernel's own text rendering of events together with the raw
# ring-buffer pages of the very same events, for tests/render_compare.
#
#   sudo sh ci/capture-render.sh OUTDIR [SECONDS]
#
# DAT=1 writes the buffer as trace.dat (trace-cmd extract) instead of raw pages.
# Environment: EVENT_GROUPS (event groups, default the broad set below),
# BUFFER_KB (per-CPU buffer, default 2048); SMALL=1 keeps only
# the formats of events that occur and the kallsyms lines the text names
# (plus each one's successor, which bounds its range): the committed sample
# tests/data/render/ is made with BUFFER_KB=24 SMALL=1.
#
# Works in a private tracefs instance (instances/tb-render-PID) so it does
# not disturb other tracing.  The instance uses a counter clock when one
# exists (x86-tsc, else counter): the kernel then prints raw timestamps in
# `trace`, which match the raw pages exactly.  Order matters: `trace` is
# read FIRST, because reading per_cpu/cpuN/trace_pipe_raw consumes the
# buffer.
#
# OUTDIR receives: trace (the kernel's text), cpuN.raw (sub-buffers),
# header_page, header_event, subbuf_kb, clock, long_size, events/<sys>/<ev>/format
# for every enabled event, saved_cmdlines, printk_formats and kallsyms.
set -eu
out=${1:?usage: capture-render.sh OUTDIR [SECONDS]}
secs=${2:-2}
T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T"
I=$T/instances/tb-render-$$
mkdir "$I"
cleanup() {
	echo 0 > "$I/tracing_on" 2>/dev/null || true
	echo 0 > "$I/events/enable" 2>/dev/null || true
	rmdir "$I" 2>/dev/null || true
}
trap cleanup EXIT INT TERM
mkdir -p "$out"
out=$(cd "$out" && pwd)

echo 0 > "$I/tracing_on"
echo "${BUFFER_KB:-2048}" > "$I/buffer_size_kb"
for c in x86-tsc counter; do
	if grep -qw "$c" "$I/trace_clock"; then echo "$c" > "$I/trace_clock"; break; fi
done
groups=${EVENT_GROUPS:-"sched irq timer syscalls signal task workqueue kmem block writeback ext4 net sock tcp rcu ipi"}
for g in $groups; do
	[ -d "$I/events/$g" ] && echo 1 > "$I/events/$g/enable"
done
echo > "$I/trace"

# ---- the workload: processes, signals, timers, files, loopback TCP ----
work=$(mktemp -d)
echo 1 > "$I/tracing_on"
(
	end=$(( $(date +%s) + secs ))
	while [ "$(date +%s)" -lt "$end" ]; do
		echo "tb-render marker $(date +%N)" > "$I/trace_marker"
		printf 'no newline %s' "$$" > "$I/trace_marker"
		ls -la /usr/bin > "$work/ls.txt"
		dd if=/dev/urandom of="$work/blob" bs=64k count=16 conv=fsync 2>/dev/null
		cat "$work/blob" > /dev/null
		sleep 0.01 &
		pid=$!
		kill -USR1 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		sync
	done
) &
wpid=$!
python3 - "$secs" <<'EOF' 2>/dev/null || true
import socket, sys, threading, time
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', 0)); srv.listen(4)
port = srv.getsockname()[1]
def serve():
    while True:
        c, _ = srv.accept()
        while True:
            d = c.recv(65536)
            if not d: break
            c.sendall(d)
        c.close()
threading.Thread(target=serve, daemon=True).start()
end = time.time() + float(sys.argv[1])
while time.time() < end:
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(b'x' * 20000); s.recv(65536); s.close()
    try:
        s6 = socket.create_connection(('::1', port), timeout=0.2); s6.close()
    except OSError:
        pass
    time.sleep(0.02)
EOF
wait "$wpid" || true
# ftrace print events last, so an overwritten buffer still holds them
for i in 1 2 3; do
	echo "tb-render marker $i" > "$I/trace_marker"
	printf 'no newline %s' "$i" > "$I/trace_marker"
done
echo 0 > "$I/tracing_on"
rm -rf "$work"

# ---- read `trace` first, then the raw pages (which consumes them) ----
cat "$I/trace" > "$out/trace"
sub=$(cat "$I/buffer_subbuf_size_kb" 2>/dev/null || echo 4)
echo "$sub" > "$out/subbuf_kb"
cat "$I/trace_clock" > "$out/clock"
if [ "${DAT:-0}" = 1 ]; then
	# the same buffer as a trace.dat instead of raw pages, for comparing
	# `tracebound report` and `trace-cmd report -N` with the kernel text
	trace-cmd extract -B "${I##*/}" -o "$out/trace.dat" >/dev/null 2>&1
fi
for d in "$I"/per_cpu/cpu*; do
	n=${d##*/cpu}
	dd if="$d/trace_pipe_raw" of="$out/cpu$n.raw" bs=$((sub * 1024)) iflag=nonblock 2>/dev/null || true
	[ -s "$out/cpu$n.raw" ] || rm -f "$out/cpu$n.raw"
done
cat "$T/events/header_page" > "$out/header_page"
cat "$T/events/header_event" > "$out/header_event"
for g in $groups; do
	[ -d "$I/events/$g" ] || continue
	for e in "$I/events/$g"/*/; do
		[ -f "$e/format" ] || continue
		name=$(basename "$e")
		mkdir -p "$out/events/$g/$name"
		cat "$e/format" > "$out/events/$g/$name/format"
	done
done
# ftrace's own events (print, from trace_marker) are always on
for name in print bprint bputs; do
	mkdir -p "$out/events/ftrace/$name"
	cat "$T/events/ftrace/$name/format" > "$out/events/ftrace/$name/format"
done
cat "$T/saved_cmdlines" > "$out/saved_cmdlines"
cat "$T/printk_formats" > "$out/printk_formats" 2>/dev/null || true
cat /proc/kallsyms > "$out/kallsyms"
if [ "${SMALL:-0}" = 1 ]; then
	# formats of the events that occur (syscalls print without their name)
	for f in "$out"/events/*/*/format; do
		d=${f%/format}
		n=${d##*/}
		case "$d" in */events/ftrace/*) continue ;; esac
		case "$n" in
		sys_enter_*) pat="sys_${n#sys_enter_}(" ;;
		sys_exit_*) pat="sys_${n#sys_exit_} -> " ;;
		*) pat=" $n: " ;;
		esac
		grep -qF -- "$pat" "$out/trace" || rm -rf "$d"
	done
	find "$out/events" -type d -empty -delete
	# kallsyms: the symbols named in the text, each with its successor
	tr -cs 'A-Za-z0-9_.' '\n' < "$out/trace" | sort -u > "$out/.words"
	sort "$out/kallsyms" | awk 'NR == FNR { w[$1] = 1; next }
		keep { print; keep = 0 }
		($3 in w) { print; keep = 1 }' "$out/.words" - > "$out/.ks"
	mv "$out/.ks" "$out/kallsyms"
	rm -f "$out/.words"
fi
getconf LONG_BIT | awk '{print $1 / 8}' > "$out/long_size"
echo "capture-render: $(grep -vc '^#' "$out/trace") lines in $out"
