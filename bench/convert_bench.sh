#!/bin/sh
# Conversion to Parquet beside `report --raw` on the same captures:
# wall time, events/s, MB/s of capture, peak RSS (GNU time), for a small
# capture, a medium one and a large one made from it (300 MB+: its pages
# repeated, bench/convert_bench.sh writes it to $TMPDIR once).  Goal
# (issue 16): converting costs no more than twice `report --raw`, and
# memory does not grow with the capture.
#
#   bench/convert_bench.sh [FILE.dat...]     after `make`
#   BIG_MB=600 bench/convert_bench.sh        a larger synthetic capture
set -eu
cd "$(dirname "$0")/.."
cli=${CLI:-build/tracebound}
[ -x "$cli" ] || make -s -j2 all
tmp=${TMPDIR:-/tmp}/tb-convert-bench
mkdir -p "$tmp"
samples=${TB_SAMPLES:-../shared/samples}
big_mb=${BIG_MB:-320}

# A v6 trace.dat with every CPU's pages repeated until the file is about
# BIG_MB: the flyrecord table ({offset, size} per CPU) is rewritten.
make_big() {
	src=$1 out=$2 ncpu=$3
	python3 - "$src" "$out" "$ncpu" "$big_mb" <<'EOF'
import struct, sys
src, out, ncpu, mb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = open(src, 'rb').read()
page = struct.unpack_from('<I', d, 14)[0]  # magic 10, "6\\0", endian, long size
fly = d.index(b'flyrecord\0') + 10
cpus = [struct.unpack_from('<QQ', d, fly + 16 * i) for i in range(ncpu)]
start = min(o for o, s in cpus if s) if any(s for o, s in cpus) else len(d)
reps = max(1, (mb << 20) // max(1, sum(s for o, s in cpus)))
head = bytearray(d[:start])
body = bytearray()
table = []
for o, s in cpus:
    pos = len(head) + len(body)
    pad = (-pos) % page
    body += b'\0' * pad
    table.append((pos + pad, s * reps))
    body += d[o:o + s] * reps
for i, (o, s) in enumerate(table):
    struct.pack_into('<QQ', head, fly + 16 * i, o, s)
open(out, 'wb').write(head + body)
EOF
}

# COMMAND... -> "cpu_seconds peak_rss_kb peak_anon_kb": CPU time (user +
# system) is what the goal is about (wall time on a shared machine is
# not); peak RSS counts the mapped capture, peak anonymous RSS (sampled
# from /proc every 0.1 s) is the program's own memory.
measure() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S %M %e' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" &
	else
		"$@" >/dev/null 2>"$tmp/err" &
	fi
	pid=$!
	anon=0
	while kill -0 "$pid" 2>/dev/null; do
		for c in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null) "$pid"; do
			a=$(awk '/^RssAnon:/ {print $2}' "/proc/$c/status" 2>/dev/null || true)
			[ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
		done
		sleep 0.1
	done
	wait "$pid" || true
	if [ -x /usr/bin/time ]; then
		tail -1 "$tmp/time" | awk -v a="$anon" '{printf "%.2f %s %s\n", $1 + $2, $3, a}'
	else
		echo "? ? $anon"
	fi
}

set -- "$@"
if [ $# -eq 0 ]; then
	set -- tests/data/sched4k.v7zstd.dat
	if [ -f "$samples/sched4k.v6.dat" ]; then
		set -- "$@" "$samples/sched4k.v6.dat"
		big=$tmp/big.v6.dat
		if [ ! -f "$big" ]; then
			ncpu=$("$cli" stats "$samples/sched4k.v6.dat" 2>/dev/null | grep -c '^  cpu ')
			make_big "$samples/sched4k.v6.dat" "$big" "$ncpu"
		fi
		set -- "$@" "$big"
	fi
fi

printf '%-20s %7s %9s | %-27s | %-27s | %s\n' capture MB events \
	'report --raw: cpu-s ev/s MB/s' 'convert: cpu-s ev/s MB/s' \
	'peak RSS KB raw/convert, anon KB raw/convert, cpu ratio'
for f in "$@"; do
	bytes=$(wc -c < "$f")
	mb=$(echo "scale=1; $bytes / 1048576" | bc)
	events=$("$cli" stats "$f" 2>/dev/null | awk '/^events:/ {n += $2} END {print n + 0}')
	# shellcheck disable=SC2046
	set -- $(measure "$cli" report --raw "$f")
	rs=$1 rk=$2 ra=$3
	rm -rf "$tmp/out"
	# shellcheck disable=SC2046
	set -- $(measure "$cli" convert --to parquet "$tmp/out" "$f")
	cs=$1 ck=$2 ca=$3
	out_mb=$(du -sm "$tmp/out" | cut -f1)
	rate() { echo "scale=0; $1 / ($2 + 0.005)" | bc; }
	printf '%-20s %7s %9s | %6s %9s %6s    | %6s %9s %6s    | %7s %7s, %6s %6s, %sx  (parquet %s MB)\n' \
		"$(basename "$f")" "$mb" "$events" \
		"$rs" "$(rate "$events" "$rs")" "$(rate "$mb" "$rs")" \
		"$cs" "$(rate "$events" "$cs")" "$(rate "$mb" "$cs")" \
		"$rk" "$ck" "$ra" "$ca" "$(echo "scale=2; $cs / ($rs + 0.005)" | bc)" "$out_mb"
done
rm -rf "$tmp/out"
