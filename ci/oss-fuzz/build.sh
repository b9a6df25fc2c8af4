#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script for tracebound.
#
# Runs inside the base-builder image with the tracebound source in
# $SRC/tracebound (and libtraceevent's in $SRC/libtraceevent for the
# differential harnesses), using only what the infrastructure hands over:
# $CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE $SRC $WORK $OUT.
#
# For every fuzz/NAME_fuzzer.c it writes to $OUT:
#   NAME_fuzzer                  the target (linked with $CXX, as OSS-Fuzz asks)
#   NAME_fuzzer.dict             from fuzz/NAME.dict, when present
#   NAME_fuzzer.options          from fuzz/NAME.options, when present
#   NAME_fuzzer_seed_corpus.zip  from corpus/NAME/, when present
# ci/test.sh runs this script outside Docker with the same variables.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=${TB_SRC:-$SRC/tracebound}
[ -f "$top/fuzz/fuzz.h" ] || top=$(cd "$here/../.." && pwd)
cd "$top"

obj=$WORK/tracebound-obj
rm -rf "$obj" && mkdir -p "$obj" "$OUT"

# The library, instrumented like the targets (the sanitizer and coverage
# flags are in $CFLAGS).
for src in lib/*.c; do
	$CC $CFLAGS -std=c11 -D_POSIX_C_SOURCE=200809L -DTB_BUILDING_LIBRARY \
		-Iinclude -Ilib -c "$src" -o "$obj/$(basename "$src" .c).o"
done
ar rcs "$obj/libtracebound.a" "$obj"/*.o

# libtraceevent, only for the differential harnesses (*_diff_fuzzer.c):
# built from source, instrumented, when the image cloned it; otherwise
# the system's copy (as when ci/test.sh runs this outside Docker).
tep_cflags=
tep_libs=
if [ -d "$SRC/libtraceevent" ]; then
	make -C "$SRC/libtraceevent" CC="$CC" EXTRA_CFLAGS="$CFLAGS" lib/libtraceevent.a >/dev/null
	tep_cflags="-I$SRC/libtraceevent/src"
	tep_libs="$SRC/libtraceevent/lib/libtraceevent.a -ldl"
elif pkg-config --exists libtraceevent 2>/dev/null; then
	tep_cflags=$(pkg-config --cflags libtraceevent)
	tep_libs=$(pkg-config --libs libtraceevent)
fi

# The CLI's commands, for fuzz/cli_fuzzer.c: cli/ but its main.c, and
# host/ (the files it reads through, the parts engine, the decompressors:
# zstd and zlib loaded with dlopen, which the image has not, so that
# compressed data is refused there), built without the Parquet writer's
# optional zstd.
for src in cli/*.c host/*.c; do
	[ "$src" = cli/main.c ] && continue
	$CC $CFLAGS -std=c11 -D_POSIX_C_SOURCE=200809L -pthread -Iinclude -Icli -Ihost \
		-c "$src" -o "$obj/$(dirname "$src")-$(basename "$src" .c).o"
done
# (cli/capture.c and host/capture.c: one object each, named by folder)
ar rcs "$obj/libtracebound-cli.a" "$obj"/cli-*.o "$obj"/host-*.o

built=0
for src in fuzz/*_fuzzer.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" _fuzzer.c)
	target=${name}_fuzzer
	extra_c=
	extra_l=
	pre_l=
	case "$name" in
	*_diff)
		if [ -z "$tep_libs" ]; then
			echo "build.sh: skipping $target (no libtraceevent)" >&2
			continue
		fi
		extra_c=$tep_cflags
		extra_l=$tep_libs
		;;
	cli)
		extra_c="-Icli -Ihost -pthread"
		pre_l="$obj/libtracebound-cli.a" # before the library it calls
		extra_l="-pthread -ldl"
		;;
	esac
	# shellcheck disable=SC2086
	$CC $CFLAGS -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Ilib -Ifuzz $extra_c \
		-c "$src" -o "$obj/$target.o"
	# shellcheck disable=SC2086
	$CXX $CXXFLAGS "$obj/$target.o" $pre_l "$obj/libtracebound.a" $extra_l \
		$LIB_FUZZING_ENGINE -o "$OUT/$target"
	[ -f "fuzz/$name.dict" ] && cp "fuzz/$name.dict" "$OUT/$target.dict"
	[ -f "fuzz/$name.options" ] && cp "fuzz/$name.options" "$OUT/$target.options"
	if [ -d "corpus/$name" ] && [ -n "$(ls -A "corpus/$name")" ]; then
		rm -f "$OUT/${target}_seed_corpus.zip"
		(cd "corpus/$name" && zip -q -r -X "$OUT/${target}_seed_corpus.zip" .)
	fi
	built=$((built + 1))
done
echo "build.sh: $built fuzz targets in $OUT"
