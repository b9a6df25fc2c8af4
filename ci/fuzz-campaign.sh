#!/bin/sh
# Fuzz every target (or the ones named) until each has used a CPU budget.
#
#   ci/fuzz-campaign.sh CPU_SECONDS [TARGET...]
#
# Runs ci/fuzz.sh on each target in rounds of FUZZ_JOBS (default 2)
# libFuzzer processes, each round merging its finds into corpus/TARGET/,
# until the CPU time ci/fuzz.sh measured for the target reaches CPU_SECONDS.
# CPU time, not wall time, is the budget because the machine is shared: a
# niced campaign gets less than jobs x seconds when anything else runs.
# Prints every round's docs/FUZZING.md row and a total per target; a target
# with a finding stops there (its input is left in build/fuzz/TARGET-run/)
# and the others go on.  Exits 1 if anything was found.
set -u
cd "$(dirname "$0")/.."

if [ "$#" -lt 1 ]; then
	echo "usage: ci/fuzz-campaign.sh CPU_SECONDS [TARGET...]" >&2
	exit 2
fi
budget=$1
shift
if [ "$#" -eq 0 ]; then
	set -- $(ls fuzz/*_fuzzer.c | sed -E 's|fuzz/(.*)_fuzzer\.c|\1|')
fi
jobs=${FUZZ_JOBS:-2}
# Rounds are at most this long (wall seconds), so a finding or a merge
# comes back within a quarter hour.
round_max=${FUZZ_ROUND_SECONDS:-900}
status=0

for target in "$@"; do
	spent=0
	execs_total=0
	while [ "$spent" -lt "$budget" ]; do
		left=$((budget - spent))
		secs=$(( (left + jobs - 1) / jobs ))
		[ "$secs" -gt "$round_max" ] && secs=$round_max
		[ "$secs" -lt 30 ] && secs=30
		# trace.dat inputs are whole files (up to hundreds of KiB): keep only
		# inputs that add edges, so make check's replay of the corpus stays short.
		merge_flags=
		[ "$target" = tracedat ] && merge_flags=-use_counters=0
		log=$(FUZZ_JOBS=$jobs FUZZ_ROW=1 FUZZ_MERGE_FLAGS=$merge_flags \
			ci/fuzz.sh "$target" "$secs" 2>&1)
		rc=$?
		echo "$log" | grep -E '^(fuzz:|\|)'
		cpu=$(echo "$log" | sed -nE 's/^fuzz: .*cpu ([0-9]+) s\).*/\1/p' | head -1)
		execs=$(echo "$log" | sed -nE 's/^fuzz: .*\): ([0-9]+) execs.*/\1/p' | head -1)
		spent=$((spent + ${cpu:-0}))
		execs_total=$((execs_total + ${execs:-0}))
		if [ "$rc" -ne 0 ]; then
			echo "$log" | tail -40 >&2
			echo "campaign: $target stopped on a finding after $spent CPU-s" >&2
			status=1
			break
		fi
		[ "${cpu:-0}" -gt 0 ] || { echo "campaign: $target used no CPU?" >&2; status=1; break; }
	done
	echo "campaign: $target: $spent CPU-s, $execs_total execs, corpus $(ls corpus/"$target" | wc -l) files"
done
exit "$status"
