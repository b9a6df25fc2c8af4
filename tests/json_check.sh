#!/bin/sh
# `tracebound report --json` read by DuckDB (issue 11): per event type of
# every sample, the row count and the sum of every numeric field equal what
# libtraceevent reads from the same records, the strings hash the same.
# Runs after tests/parquet_check.sh, which builds the libtraceevent oracle
# (build/parquet_tepsum) and installs DuckDB into tests/node/.
#
#   tests/json_check.sh          after `make`; ci/test.sh runs it
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
[ -x "$build/parquet_tepsum" ] || { echo "json_check: run tests/parquet_check.sh first (it builds $build/parquet_tepsum)"; exit 1; }
[ -d tests/node/node_modules/@duckdb/node-api ] || (cd tests/node && npm ci --no-audit --no-fund)
set -- tests/data/sched4k.v7zstd.dat
for f in sched4k.v6.dat sched4k.v7.dat; do
	[ -f "../shared/samples/$f" ] && set -- "$@" "../shared/samples/$f"
done
node tests/node/json_check.mjs --cli "$build/tracebound" --tepsum "$build/parquet_tepsum" "$@"
