#!/bin/sh
# Perfetto output, end to end (issue 12; ci/test.sh runs it, and it runs alone):
#  1. every sample capture converts, and Debian's protoc decodes the result
#     with Perfetto's schema (--decode=perfetto.protos.Trace) without error;
#  2. tests/perfetto/compare.py (python3-protobuf, /usr/bin/python3) checks
#     it event by event against libtraceevent's field values
#     (tests/perfetto/tep_fields.c) and `tracebound report --json`, thread
#     names against the saved cmdlines; once as converted by default, once
#     with --lossless (then no field may be missing from a typed message);
#  3. every corpus trace.dat converts to a trace protoc decodes, or to a
#     clean error (exit 1 malformed / 2 unusable: never a crash).
#
#   tests/perfetto/check.sh [BUILD]     (BUILD: the build directory, default build)
# Perfetto's schema: $TB_PERFETTO_PROTO, else ../shared/perfetto/perfetto_trace.proto
# beside the checkout (or /work/shared/perfetto).
set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
B=$BUILD/perfetto-check
CLI=$BUILD/tracebound
mkdir -p "$B"

proto=${TB_PERFETTO_PROTO:-}
for p in ../shared/perfetto/perfetto_trace.proto /work/shared/perfetto/perfetto_trace.proto; do
	[ -n "$proto" ] || { [ -f "$p" ] && proto=$p; } || true
done
if [ -z "$proto" ] || [ ! -f "$proto" ]; then
	echo "perfetto-check: Perfetto's perfetto_trace.proto not found (set TB_PERFETTO_PROTO)" >&2
	exit 1
fi
pdir=$(dirname "$proto")
for t in protoc /usr/bin/python3; do
	command -v "$t" >/dev/null || { echo "perfetto-check: missing $t (ci/setup.sh)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import google.protobuf' ||
	{ echo "perfetto-check: missing python3-protobuf (ci/setup.sh)" >&2; exit 1; }
[ -x "$CLI" ] || make -s BUILD="$BUILD" all

protoc -I"$pdir" --python_out="$B" "$(basename "$proto")"
${CC:-cc} -O1 -g -Wall -Wextra -Werror -Iinclude $(pkg-config --cflags libtraceevent) \
	tests/perfetto/tep_fields.c "$BUILD/libtracebound.a" $(pkg-config --libs libtraceevent) \
	-lzstd -lz -o "$B/tep_fields"

decode() { # decode FILE: protoc must accept it, silently
	protoc -I"$pdir" --decode=perfetto.protos.Trace "$(basename "$proto")" <"$1" >/dev/null 2>"$B/decode.err" &&
		[ ! -s "$B/decode.err" ] || { echo "perfetto-check: protoc rejects $1:"; cat "$B/decode.err"; return 1; }
}

n=0 seen=
for f in tests/data/*.dat ../shared/samples/*.dat /work/shared/samples/*.dat; do
	[ -f "$f" ] || continue
	# each capture once (the shared samples hold a copy of tests/data's)
	sum=$(cksum <"$f")
	case "$seen" in *"|$sum|"*) continue ;; esac
	seen="$seen|$sum|"
	"$B/tep_fields" "$f" >"$B/tep.json"
	"$CLI" report --json "$f" >"$B/report.json" 2>"$B/report.err"
	modes=default
	[ "$n" -gt 0 ] || modes="default --lossless"
	for mode in $modes; do
		opt=; [ "$mode" = default ] || opt=$mode
		# shellcheck disable=SC2086
		"$CLI" convert --to perfetto $opt "$B/out.pftrace" "$f" 2>"$B/convert.err" ||
			{ cat "$B/convert.err"; echo "perfetto-check: $f: convert failed"; exit 1; }
		decode "$B/out.pftrace"
		/usr/bin/python3 tests/perfetto/compare.py "$B" "$B/out.pftrace" "$B/tep.json" \
			"$B/report.json" >"$B/compare.out" ||
			{ cat "$B/compare.out"; echo "perfetto-check: $f ($mode): mismatch"; exit 1; }
		if [ "$mode" = --lossless ] && grep -q "without a place" "$B/compare.out"; then
			cat "$B/compare.out"; echo "perfetto-check: $f: --lossless dropped fields"; exit 1
		fi
		echo "perfetto-check: $f ($mode, $(wc -c <"$B/out.pftrace") bytes): $(head -1 "$B/compare.out" | sed 's/^compare: //')"
	done
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "perfetto-check: no sample capture found"; exit 1; }

# raw trace_pipe_raw dumps, with the formats of the kernel they came from;
# the reference is `tracebound raw --json` (tracebound's field decoder)
rm -rf "$B/formats" && mkdir -p "$B/formats"
gzip -dc tests/data/formats-6.18.tar.gz | tar -xf - -C "$B/formats"
for d in tests/data/raw-sched4k; do
	"$CLI" convert --to perfetto --events "$B/formats/events" "$B/out.pftrace" "$d"/cpu*.raw \
		2>"$B/convert.err" || { cat "$B/convert.err"; echo "perfetto-check: $d: convert failed"; exit 1; }
	decode "$B/out.pftrace"
	"$CLI" raw --events "$B/formats/events" --json "$d"/cpu*.raw >"$B/raw.json"
	/usr/bin/python3 tests/perfetto/compare.py "$B" "$B/out.pftrace" "$B/raw.json" >"$B/compare.out" ||
		{ cat "$B/compare.out"; echo "perfetto-check: $d: mismatch"; exit 1; }
	echo "perfetto-check: $d (raw dumps, $(wc -c <"$B/out.pftrace") bytes): $(head -1 "$B/compare.out" | sed 's/^compare: //')"
done

# fresh captures of this machine (root, tracefs and trace-cmd; skipped
# without them, or with TB_PERFETTO_FRESH=0): every event set, three
# sub-buffer sizes, overflowing so drops are reported
if [ "${TB_PERFETTO_FRESH:-1}" != 0 ]; then
	rc=0
	# (TB_KEEP_CAPTURES=1: the suites' captures, as CI made them in step 1)
	fresh=$B/fresh
	[ -z "${TB_KEEP_CAPTURES:-}" ] || fresh=build/capture-dat
	sh ci/capture-dat.sh ${TB_KEEP_CAPTURES:+--keep} "$fresh" >"$B/capture.log" 2>&1 || rc=$?
	if [ "$rc" = 77 ]; then
		echo "perfetto-check: no fresh captures ($(tail -1 "$B/capture.log"))"
	elif [ "$rc" != 0 ]; then
		cat "$B/capture.log"; echo "perfetto-check: capture failed"; exit 1
	else
		for f in "$fresh"/*.dat; do
			"$B/tep_fields" "$f" >"$B/tep.json"
			"$CLI" report --json "$f" >"$B/report.json" 2>/dev/null || true
			"$CLI" convert --to perfetto "$B/out.pftrace" "$f" 2>"$B/convert.err" ||
				{ cat "$B/convert.err"; echo "perfetto-check: $f: convert failed"; exit 1; }
			decode "$B/out.pftrace"
			/usr/bin/python3 tests/perfetto/compare.py "$B" "$B/out.pftrace" "$B/tep.json" \
				"$B/report.json" >"$B/compare.out" ||
				{ cat "$B/compare.out"; echo "perfetto-check: $f: mismatch"; exit 1; }
			echo "perfetto-check: fresh $(basename "$f"): $(head -1 "$B/compare.out" | sed 's/^compare: //')"
		done
	fi
fi

# The corpus: protoc's start (it parses the whole schema: 0.2 s) was most of
# this step when each trace was decoded alone.  A Trace is one repeated
# field, so traces laid end to end decode as one exactly when each decodes
# and ends on a field boundary; Python's parser checks the second (each file
# alone), protoc the whole in one run, and a refusal is then named by
# decoding each file alone.
ok=0 bad=0
rm -rf "$B/corpus" && mkdir -p "$B/corpus"
for f in corpus/tracedat/*; do
	[ -f "$f" ] || continue
	rc=0
	out=$B/corpus/$(basename "$f").pftrace
	"$CLI" convert --to perfetto "$out" "$f" 2>/dev/null || rc=$?
	if [ "$rc" -gt 2 ]; then
		echo "perfetto-check: $f: convert exited $rc"; exit 1
	fi
	if [ -s "$out" ]; then
		ok=$((ok + 1))
	else
		rm -f "$out"
		bad=$((bad + 1))
	fi
done
if [ "$ok" -gt 0 ]; then
	/usr/bin/python3 - "$B" "$B"/corpus/*.pftrace <<'PY' || exit 1
import sys
sys.path.insert(0, sys.argv[1])
import perfetto_trace_pb2 as pb
for name in sys.argv[2:]:
    try:
        pb.Trace.FromString(open(name, "rb").read())
    except Exception as e:
        sys.exit("perfetto-check: %s: not a Trace (%s)" % (name, e))
PY
	cat "$B"/corpus/*.pftrace >"$B/corpus.pftrace"
	if ! decode "$B/corpus.pftrace" >/dev/null; then
		for f in "$B"/corpus/*.pftrace; do decode "$f"; done
		exit 1
	fi
fi
echo "perfetto-check: corpus/tracedat: $ok converted to traces protoc decodes, $bad refused cleanly"
