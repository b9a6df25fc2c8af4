#!/bin/sh
# The shared samples that are there, one path a line (paths without
# blanks): sched4k.v6/v7/v7zstd.dat of $TB_SAMPLES, else ../shared/samples.
for d in "${TB_SAMPLES:-}" ../shared/samples; do
	[ -n "$d" ] && [ -d "$d" ] || continue
	for f in sched4k.v6.dat sched4k.v7.dat sched4k.v7zstd.dat; do
		if [ -f "$d/$f" ]; then echo "$d/$f"; fi
	done
	break
done
