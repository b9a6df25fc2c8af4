#!/bin/sh
# Record the SHA-256 of `trace-cmd report -N -R` for each real sample in
# tests/golden/ (a 7 MB text per sample is too big to commit; its hash is
# what tests/test_report.c checks `tracebound report --raw` against when
# trace-cmd is not installed).  Needs trace-cmd and the samples.
set -eu
cd "$(dirname "$0")/.."
samples=../shared/samples
mkdir -p tests/golden
for f in sched4k.v6.dat sched4k.v7.dat sched4k.v7zstd.dat; do
	[ -f "$samples/$f" ] || { echo "missing $samples/$f" >&2; continue; }
	trace-cmd report -N -R "$samples/$f" 2>/dev/null | sha256sum | cut -d' ' -f1 \
		> "tests/golden/$f.report-raw.sha256"
	echo "$f: $(cat "tests/golden/$f.report-raw.sha256")"
done
