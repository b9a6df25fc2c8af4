#!/usr/bin/python3
"""Compare a converted Perfetto trace with the capture, event by event.

    compare.py PB2_DIR OUT.pftrace TEP.json [REPORT.json]

PB2_DIR holds perfetto_trace_pb2.py (protoc --python_out from Perfetto's
schema); the trace is read with Debian's python3-protobuf runtime, so this
runs with /usr/bin/python3.  TEP.json is tests/perfetto/tep_fields.c's
output: every event with libtraceevent's field values, then the saved
cmdlines.  REPORT.json (optional) is `tracebound report --json` of the
same capture.

Checked, CPU by CPU in stream order: the event count; each event's
timestamp, pid and common_flags; for a typed event, that its message is
the event of that name and every field of the message equals
libtraceevent's value of the field of the same name (converted to the
proto field's type); for a generic event, its name and every field
(name[i] per array element) in order; every event field absent from a
typed message is reported (the converter drops those only for the
events it keeps typed for Perfetto's views).  The ProcessTree threads
must be exactly the saved cmdlines.  With REPORT.json: its count,
timestamps, pids and names per CPU, and that every comm it knows is the
thread name of that pid.
"""
import collections
import json
import sys

sys.path.insert(0, sys.argv[1])
import perfetto_trace_pb2  # noqa: E402
from google.protobuf.descriptor import FieldDescriptor as FD  # noqa: E402

S32 = {FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32, FD.TYPE_ENUM}
S64 = {FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64}
U32 = {FD.TYPE_UINT32, FD.TYPE_FIXED32}
U64 = {FD.TYPE_UINT64, FD.TYPE_FIXED64}


def raw(s):
    """The bytes of a JSON text: tep_fields.c writes every byte outside
    printable ASCII as \\u00XX; a text with characters past U+00FF was
    written as UTF-8."""
    try:
        return s.encode("latin-1")
    except UnicodeEncodeError:
        return s.encode("utf-8")


def utf8(s):
    """The text as protobuf holds it, or None when it is not UTF-8."""
    try:
        return raw(s).decode("utf-8")
    except UnicodeDecodeError:
        return None


def escaped(s):
    """A thread name as the converter writes it: bytes that are not
    UTF-8 become the text \\xNN (lib/perfetto.c, thread_name)."""
    b, out, i = raw(s), [], 0
    while i < len(b):
        for k in (1, 2, 3, 4):
            try:
                out.append(b[i:i + k].decode("utf-8"))
                i += k
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append("\\x%02x" % b[i])
            i += 1
    return "".join(out)


def conv(v, fd):
    if fd.type == FD.TYPE_STRING:
        return utf8(v)
    if fd.type == FD.TYPE_BYTES:
        return raw(v)
    if fd.type == FD.TYPE_BOOL:
        return v != 0
    if fd.type in S32:
        v &= 0xffffffff
        return v - (1 << 32) if v >> 31 else v
    if fd.type in S64:
        v &= (1 << 64) - 1
        return v - (1 << 64) if v >> 63 else v
    if fd.type in U32:
        return v & 0xffffffff
    return v & ((1 << 64) - 1)


class Checker:
    def __init__(self):
        self.errors = []
        self.fields = 0
        self.typed = collections.Counter()
        self.generic = collections.Counter()
        self.dropped = collections.Counter()

    def err(self, msg):
        self.errors.append(msg)

    def typed_event(self, where, name, msg, tep):
        self.typed[name] += 1
        desc = msg.DESCRIPTOR
        for fname, tv in tep["fields"].items():
            fd = desc.fields_by_name.get(fname)
            if fd is None:
                self.dropped[name + "." + fname] += 1
                continue
            self.fields += 1
            if tv is None:
                if fd.label != FD.LABEL_REPEATED and msg.HasField(fname):
                    self.err("%s: %s.%s has a value, the record has none" % (where, name, fname))
                continue
            if fd.label == FD.LABEL_REPEATED:
                got = list(getattr(msg, fname))
                want = [conv(x, fd) for x in tv]
            else:
                if not msg.HasField(fname):
                    if fd.type == FD.TYPE_ENUM and conv(tv, fd) not in fd.enum_type.values_by_number:
                        continue  # a closed proto2 enum keeps unknown values aside
                    self.err("%s: %s.%s missing (want %r)" % (where, name, fname, tv))
                    continue
                got = getattr(msg, fname)
                want = conv(tv, fd)
            if got != want:
                self.err("%s: %s.%s = %r, libtraceevent %r" % (where, name, fname, got, want))
        for fd, _ in msg.ListFields():
            if fd.name not in tep["fields"]:
                self.err("%s: %s.%s set but the format has no such field" % (where, name, fd.name))

    def generic_event(self, where, g, tep):
        self.generic[tep["name"]] += 1
        if g.event_name != tep["name"]:
            self.err("%s: generic %r, event %r" % (where, g.event_name, tep["name"]))
        want = []
        for fname, tv in tep["fields"].items():
            if isinstance(tv, list):
                want += [("%s[%d]" % (fname, i), x) for i, x in enumerate(tv)]
            elif isinstance(tv, str) and utf8(tv) is None:
                want += [("%s[%d]" % (fname, i), x) for i, x in enumerate(raw(tv))]
            elif isinstance(tv, str):
                want.append((fname, utf8(tv)))
            else:
                want.append((fname, tv))
        got = []
        for f in g.field:
            kind = f.WhichOneof("value")
            got.append((f.name, getattr(f, kind) if kind else None))
        self.fields += len(want)
        if got != want:
            for i, (a, b) in enumerate(zip(got, want)):
                if a != b:
                    self.err("%s: %s field %d: %r, libtraceevent %r" % (where, tep["name"], i, a, b))
                    break
            else:
                self.err("%s: %s: %d fields, libtraceevent %d" % (where, tep["name"], len(got), len(want)))


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    trace = perfetto_trace_pb2.Trace()
    with open(sys.argv[2], "rb") as f:
        trace.ParseFromString(f.read())
    tep_events = collections.defaultdict(list)
    cmdlines = {}
    ref_drops, raw_style = 0, False
    uname = None
    with open(sys.argv[3]) as f:
        for line in f:
            o = json.loads(line)
            if "uname" in o:
                uname = o["uname"]
                continue
            if "cmdline" in o:
                cmdlines[o["cmdline"]] = escaped(o["comm"])
                continue
            if "missed" in o:  # a loss: on the event after it, or its own line
                ref_drops += 1
            if "ts" not in o:  # an older raw --json: a drop report of its own
                raw_style = True
                continue
            if "common_pid" in o.get("fields", {}):
                raw_style = True
                # `tracebound raw --json`: the common fields among the others
                fl = o["fields"]
                o["pid"] = fl["common_pid"]
                o["common_flags"] = fl.get("common_flags", 0)
                o["fields"] = {k: v for k, v in fl.items() if not k.startswith("common_")}
            tep_events[o["cpu"]].append(o)

    pf_events = collections.defaultdict(list)
    threads = {}
    sysinfo = None
    c = Checker()
    lost = 0
    for p in trace.packet:
        if p.HasField("process_tree"):
            for t in p.process_tree.threads:
                if t.tid in threads and threads[t.tid] != t.name:
                    c.err("thread %d named twice: %r, %r" % (t.tid, threads[t.tid], t.name))
                threads[t.tid] = t.name
        if p.HasField("system_info"):
            sysinfo = p.system_info.utsname
        if p.HasField("ftrace_events"):
            b = p.ftrace_events
            lost += b.lost_events
            pf_events[b.cpu].extend(b.event)

    if uname:  # trace-cmd's "sysname nodename release [version] machine"
        w = uname.split()
        want = (w[0], w[2] if len(w) > 2 else "", w[-1] if len(w) > 3 else "",
                " ".join(w[3:-1]))
        got = (sysinfo.sysname, sysinfo.release, sysinfo.machine, sysinfo.version) if sysinfo else None
        if got != want:
            c.err("utsname %r, uname %r" % (got, uname))
    if raw_style and ref_drops != lost:
        c.err("%d drop reports in raw --json, %d bundles after a loss" % (ref_drops, lost))
    if threads != cmdlines:
        c.err("threads differ from the saved cmdlines: %d vs %d entries, e.g. %r" % (
            len(threads), len(cmdlines),
            sorted(set(threads.items()) ^ set(cmdlines.items()))[:3]))
    total = 0
    for cpu in sorted(set(tep_events) | set(pf_events)):
        pe, te = pf_events[cpu], tep_events[cpu]
        if len(pe) != len(te):
            c.err("cpu %d: %d events in the trace, %d in the capture" % (cpu, len(pe), len(te)))
        for i, (ev, tep) in enumerate(zip(pe, te)):
            where = "cpu %d event %d (ts %d)" % (cpu, i, tep["ts"])
            total += 1
            if ev.timestamp != tep["ts"]:
                c.err("%s: timestamp %d" % (where, ev.timestamp))
            if ev.pid != tep["pid"] & 0xffffffff:
                c.err("%s: pid %d, libtraceevent %d" % (where, ev.pid, tep["pid"]))
            if ev.common_flags != (tep.get("common_flags") or 0):
                c.err("%s: common_flags %d, libtraceevent %r" % (where, ev.common_flags,
                                                                 tep.get("common_flags")))
            kind = ev.WhichOneof("event")
            if tep["name"] is None:
                if kind != "generic" or ev.generic.event_name != "tb_unknown_event":
                    c.err("%s: a record without a format is not tb_unknown_event" % where)
            elif kind == "generic":
                c.generic_event(where, ev.generic, tep)
            elif kind != tep["name"]:
                c.err("%s: typed %s, event %s" % (where, kind, tep["name"]))
            else:
                c.typed_event(where, kind, getattr(ev, kind), tep)

    if len(sys.argv) == 5:
        rep = collections.defaultdict(list)
        drops = 0
        with open(sys.argv[4]) as f:
            for line in f:
                o = json.loads(line)
                if o.get("missed"):  # a drop report: its own line, or on the event after it
                    drops += 1
                if "ts" not in o:
                    continue
                rep[o["cpu"]].append(o)
        if drops != lost:
            c.err("%d drop reports in report --json, %d bundles after a loss" % (drops, lost))
        for cpu in sorted(set(rep) | set(pf_events)):
            pe, re_ = pf_events[cpu], rep[cpu]
            if len(pe) != len(re_):
                c.err("cpu %d: %d events in the trace, %d in report --json" % (cpu, len(pe), len(re_)))
            for i, (ev, r) in enumerate(zip(pe, re_)):
                if ev.timestamp != r["ts"] or ev.pid != r["pid"] & 0xffffffff:
                    c.err("cpu %d event %d: ts/pid %d/%d, report %d/%d" % (
                        cpu, i, ev.timestamp, ev.pid, r["ts"], r["pid"]))
                kind = ev.WhichOneof("event")
                name = ev.generic.event_name if kind == "generic" else kind
                if "name" in r and name != r["name"]:
                    c.err("cpu %d event %d: %s, report %s" % (cpu, i, name, r["name"]))
                comm = r.get("comm")  # report --json: UTF-8 text (or escapes)
                if comm and r["pid"] and comm != "<...>" and threads.get(r["pid"]) != escaped(comm):
                    c.err("cpu %d event %d: comm %r, thread name %r" % (
                        cpu, i, comm, threads.get(r["pid"])))

    print("compare: %d events (%d typed in %d kinds, %d generic), %d field values, "
          "%d threads, %d bundles after a loss" % (
              total, sum(c.typed.values()), len(c.typed), sum(c.generic.values()),
              c.fields, len(threads), lost))
    if c.dropped:
        print("compare: fields without a place in their typed message: " +
              ", ".join("%s (%d)" % kv for kv in sorted(c.dropped.items())))
    if c.errors:
        for e in c.errors[:20]:
            print("compare: MISMATCH " + e)
        print("compare: %d mismatches" % len(c.errors))
        sys.exit(1)


if __name__ == "__main__":
    main()
