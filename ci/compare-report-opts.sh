#!/bin/sh
# Compare tracebound report's trace-cmd options with trace-cmd report,
# byte for byte:
#   sh ci/compare-report-opts.sh [-c CLI] [--multi] FILE.dat...
# Each file alone: --uname, --version, --stat, --cpus, --first-event,
# --last-event (and with -t), and the combinations trace-cmd gives
# precedence in.  With --multi the files are also read together (-i A -i
# B ...): the merged --raw listing against trace-cmd -N -R, and the same
# options.  One line per comparison: SAME or DIFF (with the first
# differing lines); exits 1 when any differs.
#
# Not compared, because trace-cmd 3.1.6 gets them wrong: --ts-offset (it
# changes nothing there), --cpu with several files (it prints no event),
# several positional files (it reads the first only).
set -u
cli=$(dirname "$0")/../build/tracebound
multi=0
while [ $# -gt 0 ]; do
	case $1 in
	-c) cli=$2; shift 2 ;;
	--multi) multi=1; shift ;;
	*) break ;;
	esac
done
tmp=${TMPDIR:-/tmp}/tb-compare-opts.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
bad=0
opts='--uname|--version|--stat|--cpus|--first-event --last-event|-t --first-event|--last-event|--cpus --stat|--version --uname --stat'
compare() { # what, trace-cmd args, tracebound args
	# shellcheck disable=SC2086
	trace-cmd report $2 > "$tmp/tc" 2>/dev/null
	# shellcheck disable=SC2086
	"$cli" report $3 > "$tmp/ours" 2>/dev/null
	if cmp -s "$tmp/tc" "$tmp/ours"; then
		echo "SAME $1 ($(wc -l < "$tmp/tc") lines)"
	else
		echo "DIFF $1"
		diff "$tmp/tc" "$tmp/ours" | head -6
		bad=1
	fi
}
IFS_SAVE=$IFS
for f in "$@"; do
	IFS='|'
	for o in $opts; do
		IFS=$IFS_SAVE
		compare "$f [$o]" "$o $f" "$o $f"
		IFS='|'
	done
	IFS=$IFS_SAVE
done
if [ "$multi" = 1 ] && [ $# -gt 1 ]; then
	ins=
	for f in "$@"; do ins="$ins -i $f"; done
	compare "merged [-R]" "-N -R $ins" "--raw $ins"
	compare "merged [-R --ts-diff]" "-N -R --ts-diff $ins" "--raw --ts-diff $ins"
	IFS='|'
	for o in $opts; do
		IFS=$IFS_SAVE
		compare "merged [$o]" "$o $ins" "$o $ins"
		IFS='|'
	done
	IFS=$IFS_SAVE
fi
exit $bad
