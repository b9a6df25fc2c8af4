#!/bin/sh
# The hostile inputs of issue 37, against whatever tracebound is built:
# what each costs `check` and `report` in memory and CPU, and what they say.
#
#   bench/hostile.sh [TRACEBOUND] [WORKDIR]
#
# The trace.dat files are built from tests/data/sched4k.v7zstd.dat (1.4 MB)
# by bench/hostile_build.py (sections appended, options patched: needs
# python3 and the zstd command); the last two inputs are 1 GB on a pipe.
# Every run is under `ulimit -v 6000000` (as the issue measured) and
# /usr/bin/time (package `time`, in ci/setup.sh's list).  A demonstration
# run by hand, not in CI: it takes a few minutes and up to ~6 GB of memory.
# Prints one markdown table row per run: bytes added, max RSS, CPU seconds
# (user + system), exit status and the verdict (check's summary line;
# report's first error, else how many lines it printed).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
TB=${1:-$here/build/tracebound}
WORK=${2:-}
[ -x "$TB" ] || { echo "hostile.sh: $TB: not built (make build/tracebound)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "hostile.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
command -v zstd >/dev/null || { echo "hostile.sh: the zstd command is missing" >&2; exit 2; }
if [ -z "$WORK" ]; then
	WORK=$(mktemp -d)
	trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK/files"
python3 "$here/bench/hostile_build.py" "$here/tests/data/sched4k.v7zstd.dat" "$WORK/files" \
	>"$WORK/added" || exit 2
GB=1000000000

# run WHAT ADDED CMD INPUT [FEED]: one row; FEED (a shell command) writes
# the input on a pipe, else INPUT is a file.
run() {
	what=$1 added=$2 cmd=$3 input=$4 feed=${5:-}
	if [ -n "$feed" ]; then
		( ulimit -v 6000000; sh -c "$feed" | /usr/bin/time -f '%M %U %S' -o "$WORK/time" \
			"$TB" "$cmd" - >"$WORK/out" 2>"$WORK/err"; echo $? >"$WORK/rc" )
	else
		( ulimit -v 6000000; /usr/bin/time -f '%M %U %S' -o "$WORK/time" \
			"$TB" "$cmd" "$input" >"$WORK/out" 2>"$WORK/err"; echo $? >"$WORK/rc" )
	fi
	rc=$(cat "$WORK/rc")
	# the last line /usr/bin/time wrote (before it: "Command exited ...")
	set -- $(tail -n 1 "$WORK/time")
	rss=$(awk -v k="$1" 'BEGIN { b = k * 1024; if (b < 1e9) printf "%.1f MB", b / 1e6
		else printf "%.2f GB", b / 1e9 }')
	cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.1f s", u + s }')
	if [ "$cmd" = check ]; then
		verdict=$(tail -n 1 "$WORK/out")
	elif [ "$rc" = 0 ]; then
		verdict="$(wc -l <"$WORK/out") lines"
	else
		verdict=$(head -n 1 "$WORK/err")
	fi
	verdict=$(printf '%s' "$verdict" | sed -e "s|$input: ||; s|^tracebound: ||; s|(stdin): ||" \
		-e 's/^\(trace.dat v7\) [^:]*: /\1: /' | cut -c 1-100)
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$what" "$added" "$cmd" "$rss" "$cpu" \
		"$rc" "$verdict"
}

added() {
	awk -v f="$1" '$1 == f { printf "%.1f KB", $2 / 1000 }' "$WORK/added"
}

echo "tracebound: $TB"
echo
echo "| input | bytes added | command | max RSS | CPU | exit | verdict |"
echo "|---|---|---|---|---|---|---|"
while read -r file what; do
	for cmd in check report; do
		run "$what" "$(added "$file")" "$cmd" "$WORK/files/$file"
	done
done <<EOF
chunk-1g-5cpus.dat one zstd chunk inflating to 1 GiB, 5 CPUs
kallsyms-1g.dat kallsyms of 1 GiB of '0 T a' lines
cmdlines-512m.dat saved cmdlines of 512 MiB of '1 a' lines
strings-4x1g.dat 4 compressed STRINGS of 1 GiB of zeros
cpus-8192.dat 8192 CPUs overlapping on 512 KiB
strings-5x16.dat 5 extra 16-byte STRINGS sections
EOF
for cmd in check report; do
	run "1 GB of zeros on a pipe" "1 GB" "$cmd" - "head -c $GB /dev/zero"
done
for cmd in check report; do
	run "1 GB with a bad magic on a pipe" "1 GB" "$cmd" - \
		"{ printf 'NOT-A-TRACE.DAT'; head -c $((GB - 15)) /dev/zero; }"
done
