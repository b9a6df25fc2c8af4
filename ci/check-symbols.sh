#!/bin/sh
# The library's promises, checked on the built artefacts:
#  - the archive calls no allocator and does no file or stream I/O
#    (every undefined symbol must be on the allow-list below);
#  - the archive holds no mutable static storage: every .data, .bss and
#    thread-local section is empty (.data.rel.ro, read-only after
#    relocation, is allowed), so no global or static state exists;
#  - the shared library exports only tb_* symbols, and exactly the ones
#    committed in ci/exported-symbols.txt (an API change is deliberate:
#    `make exported-symbols` regenerates the list, and the diff is reviewed).
#
#   check-symbols.sh ARCHIVE SHARED [EXPORT-LIST]
#   check-symbols.sh --list SHARED      print the exported symbols, sorted
set -eu

exports() {
	nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | LC_ALL=C sort -u
}

if [ "${1:-}" = "--list" ]; then
	exports "$2"
	exit 0
fi

archive=$1
shared=$2
list=${3:-}
allowed='^(memcpy|memmove|memset|memcmp|bcmp|memchr|strlen|strnlen|__stack_chk_fail|__memcpy_chk|__memmove_chk|__memset_chk|_GLOBAL_OFFSET_TABLE_)$'
banned='^(malloc|calloc|realloc|free|strdup|strndup|reallocarray|posix_memalign|aligned_alloc|valloc|memalign|mmap|munmap|brk|sbrk|open|openat|read|write|close|lseek|pread|pwrite|fopen|fdopen|freopen|fclose|fread|fwrite|fgets|fputs|puts|putchar|printf|fprintf|sprintf|snprintf|vprintf|vfprintf|vsnprintf|dprintf|perror|abort|exit|_exit)$'
fail=0
undef=$(nm -P -u "$archive" 2>/dev/null | awk '$2 == "U" {print $1}' | sort -u)
# Symbols one library object takes from another are not imports (bcmp,
# clang's spelling of memcmp(...) == 0, is on the allow-list).
defined=$(nm -P --defined-only "$archive" 2>/dev/null | awk 'NF >= 2 {print $1}' | sort -u)
undef=$(printf '%s\n' "$undef" | grep -vxF "$defined" || true)
for s in $undef; do
	if echo "$s" | grep -Eq "$banned"; then
		echo "check-symbols: $archive uses forbidden symbol $s" >&2
		fail=1
	elif ! echo "$s" | grep -Eq "$allowed"; then
		echo "check-symbols: $archive uses $s, which is not on the allow-list" >&2
		fail=1
	fi
done
# Writable sections with content, per object: "object section size".
state=$(objdump -h "$archive" | awk '
	/^In archive/ { next }
	/file format/ { obj = $1; sub(/:$/, "", obj); next }
	/^ *[0-9]+ \./ {
		name = $2; size = $3
		if (size !~ /^0+$/ && name !~ /^\.data\.rel\.ro/ &&
		    (name ~ /^\.(data|bss|tdata|tbss)(\.|$)/))
			print obj, name, size
	}')
if [ -n "$state" ]; then
	echo "$state" | while read -r obj sec size; do
		echo "check-symbols: $obj has 0x$size bytes of mutable static storage in $sec (no global state allowed)" >&2
	done
	fail=1
fi
exported=$(exports "$shared")
for s in $exported; do
	case "$s" in
	tb_*) ;;
	*) echo "check-symbols: $shared exports $s (only tb_* may be exported)" >&2; fail=1 ;;
	esac
done
if [ -n "$list" ]; then
	tmp=$(mktemp)
	echo "$exported" | grep . > "$tmp" || true
	if ! cmp -s "$list" "$tmp"; then
		echo "check-symbols: exports of $shared differ from $list" >&2
		echo "  (+ exported but not listed, - listed but not exported):" >&2
		LC_ALL=C diff "$list" "$tmp" | sed -n 's/^> /  + /p; s/^< /  - /p' >&2 || true
		echo "  if the API change is intended: make exported-symbols, review, commit" >&2
		fail=1
	fi
	rm -f "$tmp"
fi
[ "$fail" -eq 0 ] || exit 1
echo "check-symbols: no allocator, I/O or mutable static storage in $(basename "$archive") ($(echo "$undef" | grep -c . || true) undefined symbols, all allowed); $(echo "$exported" | grep -c . || true) tb_* exports${list:+, as listed in $list}"
