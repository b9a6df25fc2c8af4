#!/bin/sh
# Fresh perf captures of this machine against perf itself (not in CI: needs
# root and perf).  Each capture: every sample line of `tracebound report`
# against `perf script` (head byte-identical, whole line on >= 99%), every
# `report --json` value and callchain address against perf's Python
# scripting (tests/perf/oracle.py).  See tests/perf/compare.py.
#
#   sh tests/perf/compare.sh [TRACEBOUND] [OUTDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tb=${1:-$here/../../build/tracebound}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
rc=0
set -- \
	"sched"   "-e sched:* -a" \
	"mix"     "-e sched:sched_switch,irq:*,timer:*,signal:*,syscalls:sys_enter_openat -a" \
	"g"       "-g -e sched:sched_switch,sched:sched_wakeup -a" \
	"z"       "-z -e sched:* -a" \
	"lost"    "-m 1 -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup -a"
while [ $# -ge 2 ]; do
	name=$1 opts=$2
	shift 2
	# shellcheck disable=SC2086
	perf record -q $opts -o "$out/$name.data" -- sh -c \
		'for i in $(seq 20); do ls -la /usr/bin > /dev/null; /bin/true; done; sleep 0.1' \
		>/dev/null 2>&1 || { echo "$name: perf record failed"; rc=1; continue; }
	python3 "$here/compare.py" "$tb" "$out/$name.data" --kallsyms /proc/kallsyms || rc=1
done
# pipe mode: the stream read from stdin
perf record -q -e 'sched:*' -a -o - -- sh -c 'ls -la /usr/bin > /dev/null; sleep 0.1' \
	> "$out/pipe.data" 2>/dev/null
python3 "$here/compare.py" "$tb" "$out/pipe.data" || rc=1
"$tb" report "$out/pipe.data" > "$out/pipe.txt"
if "$tb" report - < "$out/pipe.data" | cmp -s - "$out/pipe.txt"; then
	echo "$out/pipe.data: from stdin: the same lines"
else
	echo "$out/pipe.data: from stdin: DIFFERENT"; rc=1
fi
echo "captures in $out"
exit $rc
