#!/bin/sh
# The library's promises, checked on the built artefacts:
#  - the archive calls no allocator and does no file or stream I/O
#    (every undefined symbol must be on the allow-list below);
#  - the shared library exports only tb_* symbols.
set -eu
archive=$1
shared=$2
allowed='^(memcpy|memmove|memset|memcmp|bcmp|memchr|strlen|strnlen|__stack_chk_fail|__memcpy_chk|__memmove_chk|__memset_chk|_GLOBAL_OFFSET_TABLE_)$'
banned='^(malloc|calloc|realloc|free|strdup|strndup|reallocarray|posix_memalign|aligned_alloc|valloc|memalign|mmap|munmap|brk|sbrk|open|openat|read|write|close|lseek|pread|pwrite|fopen|fdopen|freopen|fclose|fread|fwrite|fgets|fputs|puts|putchar|printf|fprintf|sprintf|snprintf|vprintf|vfprintf|vsnprintf|dprintf|perror|abort|exit|_exit)$'
fail=0
undef=$(nm -P -u "$archive" 2>/dev/null | awk '$2 == "U" {print $1}' | sort -u)
# Symbols one library object takes from another are not imports, and
# bcmp is clang's spelling of memcmp(...) == 0 (the same pure compare).
defined=$(nm -P --defined-only "$archive" 2>/dev/null | awk 'NF >= 2 {print $1}' | sort -u)
undef=$(printf '%s\n' "$undef" | grep -vxF "$defined" | grep -vx 'bcmp' || true)
for s in $undef; do
	if echo "$s" | grep -Eq "$banned"; then
		echo "check-symbols: $archive uses forbidden symbol $s" >&2
		fail=1
	elif ! echo "$s" | grep -Eq "$allowed"; then
		echo "check-symbols: $archive uses $s, which is not on the allow-list" >&2
		fail=1
	fi
done
exported=$(nm -D --defined-only "$shared" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u)
for s in $exported; do
	case "$s" in
	tb_*) ;;
	*) echo "check-symbols: $shared exports $s (only tb_* may be exported)" >&2; fail=1 ;;
	esac
done
[ "$fail" -eq 0 ] || exit 1
echo "check-symbols: no allocator or I/O in $(basename "$archive") ($(echo "$undef" | grep -c . || true) undefined symbols, all allowed); $(echo "$exported" | grep -c . || true) tb_* exports"
