#!/bin/sh
# Compare `tracebound report --raw` with `trace-cmd report -N -R`, byte for
# byte, for each FILE.dat given:
#   sh ci/compare-report.sh [-c CLI] [-o 'OPTIONS'] FILE.dat...
# (-o: line options given to both, e.g. '-l' or '-t')
# Prints one line per file: SAME (identical), SAME-AS-UNCOMPRESSED, or
# DIFF with the first differing lines; exits 1 when any file differs.
#
# SAME-AS-UNCOMPRESSED documents the one known mismatch: on a compressed
# v7 file whose buffer uses sub-buffers larger than the file's page size
# (e.g. 64 KiB), trace-cmd 3.1.6 drops the events of every CPU's pages
# after the first when it reads the compressed chunks; the same file
# converted with `trace-cmd convert --compression none` makes trace-cmd
# print them too, and that output equals ours byte for byte.
#
# SAME-EXCEPT-UNREADABLE-DROP-COUNT: `trace-cmd convert --file-version 6`
# re-packs large sub-buffers into 4 KiB pages and stores a page's missed
# count at data+commit even when only 4 of its 8 bytes fit in the page;
# trace-cmd reads the 8 bytes across the page end (an over-read) and
# prints "CPU:N [K EVENTS DROPPED]", tracebound does not read past the
# page and prints "CPU:N [EVENTS DROPPED]".  Every other byte is equal.
# Both can meet (SAME-AS-UNCOMPRESSED-EXCEPT-DROP-COUNT): the uncompressed
# copy trace-cmd can read in full has such a re-paged count, which
# trace-cmd reads across the page end, while tracebound reads the real
# count from the original file.
set -u
cli=$(dirname "$0")/../build/tracebound
if [ "${1:-}" = -c ]; then cli=$2; shift 2; fi
opts=
if [ "${1:-}" = -o ]; then opts=$2; shift 2; fi
tmp=${TMPDIR:-/tmp}/tb-compare.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
bad=0
for f in "$@"; do
	trace-cmd report -N -R $opts "$f" > "$tmp/tc" 2>/dev/null
	"$cli" report --raw $opts "$f" > "$tmp/ours" 2>"$tmp/err"
	drops=$(grep -c 'EVENTS DROPPED' "$tmp/tc")
	lines=$(wc -l < "$tmp/tc")
	if cmp -s "$tmp/tc" "$tmp/ours"; then
		echo "SAME $f ($lines lines, $drops drop reports)"
		continue
	fi
	sed -E 's/^(.*CPU:[0-9]+ )\[[0-9]+ EVENTS DROPPED\]$/\1[EVENTS DROPPED]/' "$tmp/tc" > "$tmp/tcn"
	if cmp -s "$tmp/tcn" "$tmp/ours"; then
		echo "SAME-EXCEPT-UNREADABLE-DROP-COUNT $f ($lines lines, $(diff "$tmp/tc" "$tmp/ours" | grep -c '^<') drop counts)"
		continue
	fi
	trace-cmd convert -i "$f" -o "$tmp/plain.dat" --compression none > /dev/null 2>&1
	trace-cmd report -N -R $opts "$tmp/plain.dat" > "$tmp/tc2" 2>/dev/null
	if cmp -s "$tmp/tc2" "$tmp/ours"; then
		echo "SAME-AS-UNCOMPRESSED $f ($(wc -l < "$tmp/tc2") lines; trace-cmd's compressed read prints $lines)"
		continue
	fi
	sed -E 's/^(.*CPU:[0-9]+ )\[[0-9]+ EVENTS DROPPED\]$/\1[EVENTS DROPPED]/' "$tmp/tc2" > "$tmp/tc2n"
	sed -E 's/^(.*CPU:[0-9]+ )\[[0-9]+ EVENTS DROPPED\]$/\1[EVENTS DROPPED]/' "$tmp/ours" > "$tmp/oursn"
	if cmp -s "$tmp/tc2n" "$tmp/oursn"; then
		echo "SAME-AS-UNCOMPRESSED-EXCEPT-DROP-COUNT $f ($(wc -l < "$tmp/tc2") lines; trace-cmd's compressed read prints $lines)"
		continue
	fi
	echo "DIFF $f"
	diff "$tmp/tc" "$tmp/ours" | head -6
	bad=1
done
exit $bad
