#!/bin/sh
# Fresh perf captures of this machine against perf itself (not in CI: needs
# root and perf).  Each capture: every sample line of `tracebound report`
# against `perf script` (head byte-identical, whole line on >= 99%), every
# `report --json` value and callchain address against perf's Python
# scripting (tests/perf/oracle.py), the samples lost against perf's raw
# dump; the capture made to lose samples must lose some.  See
# tests/perf/compare.py.
#
#   sh tests/perf/compare.sh [TRACEBOUND] [OUTDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tb=${1:-$here/../../build/tracebound}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
rc=0
# every print fmt helper and %p form this kernel's events use
wide='sched:*,irq:*,timer:*,syscalls:sys_enter_*,kmem:*,workqueue:*,block:*,net:*'
set -- \
	"sched"   "-e sched:* -a" \
	"mix"     "-e sched:sched_switch,irq:*,timer:*,signal:*,syscalls:sys_enter_openat -a" \
	"g"       "-g -e sched:sched_switch,sched:sched_wakeup -a" \
	"z"       "-z -e sched:* -a" \
	"lost"    "-m 1 -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup -a" \
	"wide"    "-e $wide -a" \
	"wide-g"  "-g -e timer:*,kmem:kmalloc,kmem:kfree,workqueue:*,block:* -a" \
	"wide-z"  "-z -e $wide -a"
while [ $# -ge 2 ]; do
	name=$1 opts=$2
	shift 2
	# the wide mixes (every syscall, every kmem event) once, the others 20 times
	case $name in
	wide*) n=1 ;;
	*) n=20 ;;
	esac
	# shellcheck disable=SC2086
	perf record -q $opts -o "$out/$name.data" -- sh -c \
		"for i in \$(seq $n); do ls -la /usr/bin > /dev/null; /bin/true; done;
		 dd if=/dev/zero of=$out/dd.tmp bs=64k count=16 oflag=direct 2>/dev/null;
		 rm -f $out/dd.tmp; sleep 0.1" \
		>/dev/null 2>&1 || { echo "$name: perf record failed"; rc=1; continue; }
	python3 "$here/compare.py" "$tb" "$out/$name.data" --kallsyms /proc/kallsyms || rc=1
	if [ "$name" = lost ] && "$tb" stats "$out/lost.data" | grep -q '^dropped: 0$'; then
		echo "$name: no sample lost: the capture shows nothing"; rc=1
	fi
done
# pipe mode: the stream read from stdin
perf record -q -e 'sched:*' -a -o - -- sh -c 'ls -la /usr/bin > /dev/null; sleep 0.1' \
	> "$out/pipe.data" 2>/dev/null
python3 "$here/compare.py" "$tb" "$out/pipe.data" || rc=1
# pipe mode with -z: the COMPRESSED records in the stream
perf record -q -z -e 'sched:*' -a -o - -- sh -c 'ls -la /usr/bin > /dev/null; sleep 0.1' \
	> "$out/pipe-z.data" 2>/dev/null
python3 "$here/compare.py" "$tb" "$out/pipe-z.data" || rc=1
# perf 6.1 segfaults piping the whole wide mix: a part of it.  perf script
# names no kernel symbol of a pipe (%pS prints the address): no --kallsyms
perf record -q -e 'sched:sched_switch,irq:*,timer:*,kmem:kmalloc,kmem:kfree,kmem:mm_page_alloc,syscalls:sys_enter_write,syscalls:sys_enter_close,workqueue:*,block:*' \
	-a -o - -- sh -c 'ls -la /usr/bin > /dev/null; sleep 0.1' > "$out/wide-pipe.data" 2>/dev/null
python3 "$here/compare.py" "$tb" "$out/wide-pipe.data" || rc=1
for p in pipe pipe-z; do
	"$tb" report "$out/$p.data" > "$out/$p.txt"
	if "$tb" report - < "$out/$p.data" | cmp -s - "$out/$p.txt"; then
		echo "$out/$p.data: from stdin: the same lines"
	else
		echo "$out/$p.data: from stdin: DIFFERENT"; rc=1
	fi
done
echo "captures in $out"
exit $rc
