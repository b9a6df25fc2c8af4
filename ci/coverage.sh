#!/bin/sh
# Line and branch coverage of lib/ after `make coverage` ran the Check suites
# and the corpus replay with clang's source-based coverage.  Prints one row
# per file of lib/ and the total, and fails when the total is below the goals.
#
#   coverage.sh BUILD-DIR MIN-LINES-% MIN-BRANCHES-% [ENFORCE]
# ENFORCE=0 prints the shortfall without failing (the Makefile sets it until
# lib/ holds a decoder besides the foundation).
# Every uncovered line is listed in BUILD-DIR/uncovered.txt, the annotated
# source (counts per line and per branch) is BUILD-DIR/coverage.txt.
set -eu
build=$1
min_lines=$2
min_branches=$3
enforce=${4:-1}
LLVM_PROFDATA=${LLVM_PROFDATA:-llvm-profdata}
LLVM_COV=${LLVM_COV:-llvm-cov}

set -- "$build"/profiles/*.profraw
[ -e "$1" ] || { echo "coverage: no profiles in $build/profiles" >&2; exit 1; }
# (main and the harness entry point exist once per binary, so merging warns
# that their profiles differ; only lib/ is reported.)  A profile cut short
# is left out with a warning (--failure-mode=all): the tests that run the
# CLI under `ulimit -f` (a full disk) cut its own profile at the limit too.
{ "$LLVM_PROFDATA" merge -sparse --failure-mode=all -o "$build/tracebound.profdata" "$@"; } 2>&1 |
	grep -v 'functions have mismatched data' >&2 || true
[ -s "$build/tracebound.profdata" ] || { echo "coverage: merge failed" >&2; exit 1; }

objs=
for b in "$build"/tests/check_all "$build"/tracebound "$build"/replay/*; do
	[ -x "$b" ] && objs="$objs -object $b"
done
objs=${objs# -object }
srcs=$(ls lib/*.c lib/*.h)

# shellcheck disable=SC2086
quiet() { grep -v 'functions have mismatched data' >&2 || true; }
# The two reports side by side (each llvm-cov is one thread; CI has two).
# shellcheck disable=SC2086
{ "$LLVM_COV" show -instr-profile="$build/tracebound.profdata" -show-branches=count \
	$objs $srcs > "$build/coverage.txt"; } 2>&1 | quiet &
show=$!
# shellcheck disable=SC2086
{ "$LLVM_COV" export -instr-profile="$build/tracebound.profdata" $objs $srcs \
	> "$build/coverage.json"; } 2>&1 | quiet
wait "$show"

# Lines come from llvm-cov's per-file summary (merged across binaries).
# Branches are counted per source position: a static inline function of a
# header is instantiated in every file that includes it, and llvm-cov's own
# summary counts each instantiation's branches separately; a branch
# outcome (true or false) is covered when any test or replay took it.
jq -r --arg root "$(pwd)/" '
	.data[0].files[]
	| (.branches | group_by(.[0:4])
	   | map({t: (map(.[4]) | add), f: (map(.[5]) | add)})) as $b
	| [(.filename | sub("^" + $root; "")), .summary.lines.count, .summary.lines.covered,
	   ($b | length) * 2, ($b | map((if .t > 0 then 1 else 0 end) + (if .f > 0 then 1 else 0 end)) | add // 0)]
	| @tsv' "$build/coverage.json" > "$build/coverage.tsv"
for f in $srcs; do
	grep -q "^$f	" "$build/coverage.tsv" || {
		n=$(grep -c . "$f" || true)
		case "$f" in
		*.c) printf '%s\t%s\t0\t0\t0\n' "$f" "$n" >> "$build/coverage.tsv" ;;
		esac
	}
done
LC_ALL=C sort "$build/coverage.tsv" | awk -F'\t' -v ml="$min_lines" -v mb="$min_branches" '
	function pct(c, n) { return n ? sprintf("%6.2f%%", 100 * c / n) : "     -" }
	BEGIN { printf "%-24s %8s %8s %8s %10s %10s %8s\n", "file", "lines", "missed", "cover", "branches", "missed", "cover" }
	{
		printf "%-24s %8d %8d %8s %10d %10d %8s\n", $1, $2, $2 - $3, pct($3, $2), $4, $4 - $5, pct($5, $4)
		L += $2; LC += $3; B += $4; BC += $5
	}
	END {
		printf "%-24s %8d %8d %8s %10d %10d %8s\n", "TOTAL", L, L - LC, pct(LC, L), B, B - BC, pct(BC, B)
		lp = L ? 100 * LC / L : 100; bp = B ? 100 * BC / B : 100
		bad = 0
		if (lp < ml) { printf "coverage: lines %.2f%% below the goal of %s%%\n", lp, ml; bad = 1 }
		if (bp < mb) { printf "coverage: branches %.2f%% below the goal of %s%%\n", bp, mb; bad = 1 }
		if (!bad) printf "coverage: lines %.2f%% (goal %s%%), branches %.2f%% (goal %s%%): met\n", lp, ml, bp, mb
		exit bad
	}' || rc=$?
# Every line no test or replay reaches, for naming it (and why) in the docs.
awk '/^\/.*:$/ { f = $0; sub(/:$/, "", f); sub(".*/lib/", "lib/", f) }
	/^ *[0-9]+\| *0\|/ { split($0, a, "|"); gsub(/ /, "", a[1]); print f ":" a[1] ":" a[3] }' \
	"$build/coverage.txt" | LC_ALL=C sort -u -t: -k1,1 -k2,2n > "$build/uncovered.txt"
echo "coverage: $(grep -c . "$build/uncovered.txt" || true) uncovered lines listed in $build/uncovered.txt"
if [ "${rc:-0}" -ne 0 ] && [ "$enforce" = 0 ]; then
	echo "coverage: goals not enforced yet (lib/ holds only the foundation)"
	rc=0
fi
exit "${rc:-0}"
