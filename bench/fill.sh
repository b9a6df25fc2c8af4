# Sourced by bench/make_large.sh and bench/make_mix.sh: run the caller's
# `busy` function once per CPU with tracing on in tracefs directory $1
# (the top level or an instance) until one CPU's buffer holds $3 percent
# of its $2 KiB or 60 s pass, then stop tracing and the workload.  Sets
# `s` (half-seconds run); uses `ncpu` and `pids` (the caller's cleanup
# kills what is left in it).
fill_buffers() {
	echo 1 > "$1/tracing_on"
	i=0
	while [ $i -lt "$ncpu" ]; do
		busy &
		pids="$pids $!"
		i=$((i + 1))
	done
	full_kb=$(($2 * $3 / 100))
	s=0
	while [ $s -lt 120 ]; do
		sleep 0.5
		s=$((s + 1))
		done_=0
		c=0
		while [ $c -lt "$ncpu" ]; do
			bytes=$(awk '$1 == "bytes:" {print $2}' "$1/per_cpu/cpu$c/stats")
			[ $((bytes / 1024)) -ge "$full_kb" ] && done_=1
			c=$((c + 1))
		done
		[ $done_ = 1 ] && break
	done
	echo 0 > "$1/tracing_on"
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=
}
