#!/bin/sh
# A dataset of many uploads (issue 41, docs/parquet.md "A dataset of
# uploads"): the samples, the bundled capture, copies of one upload, stdin,
# the raw dumps and two converts at once into one dataset, read by DuckDB
# (one hive-partitioned glob per table) and hyparquet (tests/node/lake.mjs).
#
#   tests/lake_check.sh            after `make`; ci/test.sh runs it
#   TB_SAMPLES=DIR tests/lake_check.sh   the shared samples elsewhere
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
[ -x "$build/tracebound" ] || make -s -j2 all
[ -d tests/node/node_modules/@duckdb/node-api ] || (cd tests/node && npm ci --no-audit --no-fund)
out=$build/lake-check
rm -rf "$out"
mkdir -p "$out"
tar xzf tests/data/formats-6.18.tar.gz -C "$out"
# shellcheck disable=SC2046
set -- tests/data/sched4k.v7zstd.dat $(sh tests/samples.sh)
# one sample at least besides the bundled capture: a copy of it otherwise
[ $# -ge 2 ] || { cp tests/data/sched4k.v7zstd.dat "$out/copy.dat"; set -- "$@" "$out/copy.dat"; }
node tests/node/lake.mjs --cli "$build/tracebound" --out "$out" --events "$out/events" \
	--raw tests/data/raw-sched4k "$@"
