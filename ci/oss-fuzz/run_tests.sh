#!/bin/bash -eu
# OSS-Fuzz's run_tests.sh (Chronos "check tests"): the project's own unit
# tests, run in the build image after build.sh, so a change that breaks
# them is caught where the fuzzers are built.  Runs the Check suites and the
# replay of every corpus file through every harness (`make check-run`),
# uninstrumented, in its own build directory.
#
# The tests compare with libtraceevent: the system's copy when pkg-config
# finds one (as on a development machine, where ci/oss-fuzz/run-local.sh
# runs this), else one installed from the clone the Dockerfile makes,
# built afresh (build.sh built that clone with the fuzzing flags).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=${TB_SRC:-$SRC/tracebound}
[ -f "$top/fuzz/fuzz.h" ] || top=$(cd "$here/../.." && pwd)
cd "$top"

# The fuzzing flags OSS-Fuzz exports are for the targets, not the tests.
unset CFLAGS CXXFLAGS LIB_FUZZING_ENGINE

if ! pkg-config --exists libtraceevent 2>/dev/null; then
	tep=$WORK/libtraceevent-tests
	rm -rf "$tep" "$tep-src" && cp -r "$SRC/libtraceevent" "$tep-src"
	make -C "$tep-src" clean >/dev/null
	make -C "$tep-src" prefix="$tep" install >/dev/null
	for d in "$tep"/lib*/pkgconfig "$tep"/lib/*/pkgconfig; do
		[ -d "$d" ] && PKG_CONFIG_PATH=$d${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
	done
	export PKG_CONFIG_PATH
	export LD_LIBRARY_PATH=$(dirname "$(find "$tep" -name 'libtraceevent.so*' | head -1)")
fi

make -j"$(nproc)" BUILD="$WORK/tracebound-tests" CC="${CC:-cc}" check-run
