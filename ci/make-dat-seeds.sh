#!/bin/sh
# Regenerate the trace.dat fuzz seeds in corpus/tracedat/ from the real
# sample (../shared/samples/sched4k.v7.dat): small files made by the test
# writer with the sample's own texts and its first two sub-buffers per CPU.
set -eu
cd "$(dirname "$0")/.."
make build/tests/check_all >/dev/null
mkdir -p corpus/tracedat
TB_WRITE_SEEDS="$PWD/corpus/tracedat" TB_SRCDIR="$PWD" CK_RUN_SUITE=tracedat \
	CK_RUN_CASE=container build/tests/check_all >/dev/null
ls -l corpus/tracedat
