#!/bin/sh
# Bounded stack: report the largest stack frame of any library function
# (from the compiler's -fstack-usage .su files) and fail when any frame
# exceeds LIMIT bytes or is not statically bounded ("dynamic").
#
#   check-stack.sh LIMIT FILE.su...
set -eu
limit=$1
shift
if [ "$#" -eq 0 ]; then
	echo "check-stack: no .su files given" >&2
	exit 1
fi
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "check-stack: $f missing (is -fstack-usage supported by this compiler?)" >&2
		exit 1
	fi
done
# .su lines: "file:line[:col]:function<TAB>bytes<TAB>static|dynamic[,bounded]"
cat "$@" | awk -F'\t' -v limit="$limit" '
	{ n++ }
	$3 !~ /^static/ && $3 !~ /bounded/ { print "check-stack: " $1 " has an unbounded frame (" $3 ")" > "/dev/stderr"; bad = 1 }
	$2 + 0 > limit { print "check-stack: " $1 " uses " $2 " bytes of stack (limit " limit ")" > "/dev/stderr"; bad = 1 }
	NR == 1 || $2 + 0 > max { max = $2 + 0; where = $1 }
	END {
		printf "check-stack: largest frame %d bytes in %s (%d functions, limit %d)\n", max, where, n, limit
		exit bad
	}'
