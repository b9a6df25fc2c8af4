#!/bin/sh
# The Parquet output read by real engines (issue 16): DuckDB and hyparquet
# (npm, installed into tests/node/ by ci/setup.sh, or here when missing)
# check the tables written from the real captures against tracebound stats
# and libtraceevent (tests/parquet_tepsum.c); every trace.dat of the fuzz
# corpus converts to files DuckDB opens, or to a clean error.
#
#   tests/parquet_check.sh            after `make`; ci/test.sh runs it
#   TB_SAMPLES=DIR tests/parquet_check.sh   the shared samples elsewhere
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
[ -x "$build/tracebound" ] || make -s -j2 all
[ -d tests/node/node_modules/@duckdb/node-api ] || (cd tests/node && npm ci --no-audit --no-fund)
defs=
pkg-config --exists libzstd 2>/dev/null && defs="$defs -DTB_HAVE_ZSTD" && libs="-lzstd" || libs=
# shellcheck disable=SC2086
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -pthread -Wall -Wextra -Werror -Iinclude -Ilib -Icli -Ihost \
	$(pkg-config --cflags libtraceevent) $defs tests/parquet_tepsum.c cli/capture.c cli/util.c cli/input.c cli/budget.c cli/opts.c host/*.c \
	"$build/libtracebound.a" $(pkg-config --libs libtraceevent) $libs -ldl -o "$build/parquet_tepsum"
out=$build/parquet-check
rm -rf "$out"
# shellcheck disable=SC2046
set -- tests/data/sched4k.v7zstd.dat $(sh tests/samples.sh)
node tests/node/check.mjs --cli "$build/tracebound" --tepsum "$build/parquet_tepsum" \
	--out "$out/samples" "$@"
# the corpus under the sanitizers when such a build exists (ci/test.sh runs
# this after `make coverage`, whose binaries carry ASan+UBSan; their
# coverage counts go to the check's own folder): a report fails the check
cli=$build/tracebound
for b in build/sanitize build/coverage; do
	[ -x $b/tracebound ] && cli=$b/tracebound
done
LLVM_PROFILE_FILE=$out/profiles/%p.profraw ASAN_OPTIONS=exitcode=86 UBSAN_OPTIONS=exitcode=86:halt_on_error=1 \
	node tests/node/check.mjs --cli "$cli" --out "$out/corpus" --open-only corpus/tracedat/*
