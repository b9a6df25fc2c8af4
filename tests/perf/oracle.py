# perf's own decoding of a perf.data, one JSON object per sample, for
# tests/perf/compare.sh: `perf script -i X.data -s tests/perf/oracle.py`.
# Run inside perf (its Python scripting): every event reaches
# trace_unhandled, its fields typed by perf's copy of libtraceevent.
import json
import sys

out = sys.stdout


def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):
    s = perf_sample_dict.get("sample", {})
    fields = {}
    for k, v in event_fields_dict.items():
        if k.startswith("common_"):
            continue
        if isinstance(v, (bytes, bytearray)):
            v = v.decode("latin-1").rstrip("\0")
        fields[k] = v
    chain = [n["ip"] for n in perf_sample_dict.get("callchain", [])]
    o = {"name": event_name, "cpu": s.get("cpu"), "ts": s.get("time"),
         "tid": s.get("tid"), "period": s.get("period"), "fields": fields}
    if chain:
        o["callchain"] = chain
    out.write(json.dumps(o) + "\n")
