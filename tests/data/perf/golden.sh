#!/bin/sh
# Turn `perf report -D` (perf's own raw dump) into the golden lines
# tests/test_perfdata.c compares the decoder with: one line per record,
# in file order,
#   OFFSET SIZE TYPE CPU TIME [DETAIL]
# OFFSET and SIZE in hex as perf prints them, TYPE without PERF_RECORD_,
# CPU and TIME from the record's sample (SAMPLE) or sample_id_all trailer
# (perf prints 0 0 where there is none), DETAIL for SAMPLE "pid/tid ip
# period", for COMM "comm:pid/tid", for FORK/EXIT "(pid:tid):(ppid:ptid)".
# Pipe streams: perf counts offsets from the first record, after the
# 16-byte header.  Where perf prints -1 -1 (no sample read yet) the
# line says 0 0, as everywhere else without a sample.
#   golden.sh FILE.data > tests/golden/perf/FILE.records
set -eu
perf report -D -i "$1" 2>/dev/null | awk '
function hex(s,   i, v, c) {
	v = 0
	for (i = 3; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
/^-?[0-9]+ -?[0-9]+ (0x[0-9a-f]+|0) \[0x[0-9a-f]+\]: PERF_RECORD_/ {
	cpu = $1; time = $2; off = $3; size = $4; gsub(/[\[\]:]/, "", size)
	rest = $0; sub(/^[^:]*: PERF_RECORD_/, "", rest)
	type = rest; sub(/[^A-Z0-9_].*$/, "", type)
	detail = ""
	if (type == "SAMPLE") {
		# SAMPLE(IP, 0x1): pid/tid: ip period: P addr: A
		split(rest, w, " ")
		pt = w[3]; sub(/:$/, "", pt)
		detail = pt " " w[4] " " w[6]
	} else if (type == "COMM") {
		d = rest; sub(/^COMM( exec)?: /, "", d); detail = d
	} else if (type == "FORK" || type == "EXIT") {
		d = rest; sub(/^(FORK|EXIT)/, "", d); detail = d
	}
	if (cpu == -1 && time == -1) { cpu = 0; time = 0 } # perf: no sample read yet
	printf "%d %s %s %s %s %s%s\n", hex(off), off, size, type, cpu, time, (detail == "" ? "" : " " detail)
}' | sort -n -s -k1,1 | cut -d' ' -f2-
