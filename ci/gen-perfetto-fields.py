#!/usr/bin/env python3
"""Generate lib/perfetto_fields.h from Perfetto's merged trace schema.

    ci/gen-perfetto-fields.py PERFETTO_TRACE_PROTO > lib/perfetto_fields.h

Field numbers are facts of Perfetto's schema (perfetto_trace.proto, the
merged file upstream generates); this script reads them out of the .proto
text so the C table is never typed by hand.  It writes:

  - the numbers of the container fields the converter writes (Trace,
    TracePacket, FtraceEventBundle, FtraceEvent, GenericFtraceEvent,
    ProcessTree) and the FtraceClock values, as #defines;
  - one row per typed ftrace event of FtraceEvent's `oneof event` (its
    field number there, its name, and the group: the ftrace/<group>.proto
    it is declared in, which is the kernel's event system for the events
    the converter maps), sorted by name;
  - each such event's fields: name, number, protobuf type, repeated.

tests/test_protobuf.c runs this script on the schema and checks that the
committed header is exactly its output, so the table cannot drift.
Python 3 standard library only.
"""
import re
import sys

SCALARS = {
    "int32": "INT32", "int64": "INT64", "uint32": "UINT32", "uint64": "UINT64",
    "sint32": "SINT32", "sint64": "SINT64", "bool": "BOOL",
    "fixed32": "FIXED32", "fixed64": "FIXED64", "sfixed32": "SFIXED32",
    "sfixed64": "SFIXED64", "float": "FLOAT", "double": "DOUBLE",
    "string": "STRING", "bytes": "BYTES",
}

TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_.]*|-?\d+|[{}\[\]()<>=;,]')


def tokenize(text):
    """Tokens with the ftrace/<group>.proto each line belongs to."""
    toks = []
    group = None
    in_block = False
    for line in text.split("\n"):
        m = re.match(r"// Begin of protos/perfetto/trace/ftrace/(\w+)\.proto", line)
        if m:
            group = m.group(1)
        elif line.startswith("// End of "):
            group = None
        if in_block:
            end = line.find("*/")
            if end < 0:
                continue
            line = line[end + 2:]
            in_block = False
        cut = line.find("//")  # the schema has no "//" inside strings
        if cut >= 0:
            line = line[:cut]
        line = re.sub(r"/\*.*?\*/", " ", line)
        if "/*" in line:
            line = line[:line.index("/*")]
            in_block = True
        for t in TOKEN.findall(line):
            toks.append((t, group))
    return toks


class Parser:
    def __init__(self, toks):
        self.t = toks
        self.i = 0
        self.messages = {}   # short name -> {"group", "fields": [...], "full"}
        self.enums = {}      # short name -> {value name: number}

    def peek(self):
        return self.t[self.i][0] if self.i < len(self.t) else None

    def take(self):
        tok = self.t[self.i]
        self.i += 1
        return tok

    def skip_statement(self):
        depth = 0
        while self.i < len(self.t):
            tok = self.take()[0]
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth <= 0:
                    return
            elif tok == ";" and depth == 0:
                return

    def parse_file(self):
        while self.i < len(self.t):
            tok = self.peek()
            if tok == "message":
                self.parse_message("")
            elif tok == "enum":
                self.parse_enum()
            else:
                self.skip_statement()

    def parse_enum(self):
        self.take()
        name = self.take()[0]
        assert self.take()[0] == "{"
        values = {}
        while self.peek() != "}":
            tok = self.take()[0]
            if tok in ("option", "reserved"):
                self.i -= 1
                self.skip_statement()
                continue
            if self.peek() == "=":
                self.take()
                values[tok] = int(self.take()[0])
                self.skip_statement()
        self.take()
        self.enums.setdefault(name, values)

    def parse_field(self, fields, label, oneof=None):
        typ = self.take()[0]
        name = self.take()[0]
        assert self.take()[0] == "=", name
        num = int(self.take()[0])
        self.skip_statement()
        fields.append({"type": typ, "name": name, "num": num,
                       "repeated": label == "repeated", "oneof": oneof})

    def parse_message(self, outer):
        self.take()
        name, group = self.take()
        full = outer + "." + name if outer else name
        assert self.take()[0] == "{"
        fields = []
        while self.peek() != "}":
            tok = self.peek()
            if tok == "message":
                self.parse_message(full)
            elif tok == "enum":
                self.parse_enum()
            elif tok == "oneof":
                self.take()
                oneof = self.take()[0]
                assert self.take()[0] == "{"
                while self.peek() != "}":
                    if self.peek() == "option":
                        self.skip_statement()
                    else:
                        self.parse_field(fields, None, oneof)
                self.take()
                if self.peek() == ";":
                    self.take()
            elif tok in ("optional", "repeated", "required"):
                self.take()
                self.parse_field(fields, tok)
            elif tok in ("reserved", "extensions", "option", "extend", "map"):
                self.skip_statement()
            elif tok == ";":
                self.take()
            else:
                self.parse_field(fields, None)
        self.take()
        self.messages.setdefault(full, {"group": group, "fields": fields, "name": name})


def field_of(p, msg, name):
    for f in p.messages[msg]["fields"]:
        if f["name"] == name:
            return f["num"]
    raise SystemExit("schema: %s has no field %s" % (msg, name))


def kind_of(p, typ):
    if typ in SCALARS:
        return SCALARS[typ]
    short = typ.split(".")[-1]
    if short in p.enums:
        return "ENUM"
    return "MESSAGE"


CONTAINERS = [
    ("TRACE_PACKET", "Trace", "packet"),
    ("PACKET_TIMESTAMP", "TracePacket", "timestamp"),
    ("PACKET_FTRACE_EVENTS", "TracePacket", "ftrace_events"),
    ("PACKET_PROCESS_TREE", "TracePacket", "process_tree"),
    ("PACKET_SYSTEM_INFO", "TracePacket", "system_info"),
    ("PACKET_SEQUENCE_ID", "TracePacket", "trusted_packet_sequence_id"),
    ("BUNDLE_CPU", "FtraceEventBundle", "cpu"),
    ("BUNDLE_EVENT", "FtraceEventBundle", "event"),
    ("BUNDLE_LOST_EVENTS", "FtraceEventBundle", "lost_events"),
    ("BUNDLE_FTRACE_CLOCK", "FtraceEventBundle", "ftrace_clock"),
    ("BUNDLE_FTRACE_TIMESTAMP", "FtraceEventBundle", "ftrace_timestamp"),
    ("BUNDLE_BOOT_TIMESTAMP", "FtraceEventBundle", "boot_timestamp"),
    ("BUNDLE_ERROR", "FtraceEventBundle", "error"),
    ("ERROR_TIMESTAMP", "FtraceEventBundle.FtraceError", "timestamp"),
    ("ERROR_STATUS", "FtraceEventBundle.FtraceError", "status"),
    ("EVENT_TIMESTAMP", "FtraceEvent", "timestamp"),
    ("EVENT_PID", "FtraceEvent", "pid"),
    ("EVENT_COMMON_FLAGS", "FtraceEvent", "common_flags"),
    ("EVENT_GENERIC", "FtraceEvent", "generic"),
    ("GENERIC_EVENT_NAME", "GenericFtraceEvent", "event_name"),
    ("GENERIC_FIELD", "GenericFtraceEvent", "field"),
    ("FIELD_NAME", "GenericFtraceEvent.Field", "name"),
    ("FIELD_STR", "GenericFtraceEvent.Field", "str_value"),
    ("FIELD_INT", "GenericFtraceEvent.Field", "int_value"),
    ("FIELD_UINT", "GenericFtraceEvent.Field", "uint_value"),
    ("TREE_PROCESSES", "ProcessTree", "processes"),
    ("TREE_THREADS", "ProcessTree", "threads"),
    ("THREAD_TID", "ProcessTree.Thread", "tid"),
    ("THREAD_TGID", "ProcessTree.Thread", "tgid"),
    ("THREAD_NAME", "ProcessTree.Thread", "name"),
    ("SYSINFO_UTSNAME", "SystemInfo", "utsname"),
    ("UTSNAME_SYSNAME", "Utsname", "sysname"),
    ("UTSNAME_VERSION", "Utsname", "version"),
    ("UTSNAME_RELEASE", "Utsname", "release"),
    ("UTSNAME_MACHINE", "Utsname", "machine"),
]

ENUMS = [
    ("CLOCK_UNSPECIFIED", "FtraceClock", "FTRACE_CLOCK_UNSPECIFIED"),
    ("CLOCK_GLOBAL", "FtraceClock", "FTRACE_CLOCK_GLOBAL"),
    ("CLOCK_LOCAL", "FtraceClock", "FTRACE_CLOCK_LOCAL"),
    ("CLOCK_MONO_RAW", "FtraceClock", "FTRACE_CLOCK_MONO_RAW"),
]


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: gen-perfetto-fields.py perfetto_trace.proto")
    with open(sys.argv[1], encoding="utf-8") as f:
        p = Parser(tokenize(f.read()))
    p.parse_file()

    events = []
    for f in p.messages["FtraceEvent"]["fields"]:
        if f["oneof"] != "event":
            continue
        msg = p.messages.get(f["type"])
        if msg is None or f["type"] == "GenericFtraceEvent":
            continue
        events.append((f["name"], f["num"], msg["group"] or "", msg["fields"]))
    events.sort()

    out = []
    w = out.append
    w("/*")
    w(" * GENERATED by ci/gen-perfetto-fields.py from Perfetto's perfetto_trace.proto:")
    w(" * do not edit (tests/test_protobuf.c checks it equals the script's output).")
    w(" *")
    w(" * Field numbers of the Perfetto trace messages the converter writes, and")
    w(" * every typed ftrace event of FtraceEvent's oneof with its fields.")
    w(" * Internal header: not installed, not part of the API.")
    w(" */")
    w("#ifndef TB_LIB_PERFETTO_FIELDS_H")
    w("#define TB_LIB_PERFETTO_FIELDS_H")
    w("")
    for macro, msg, name in CONTAINERS:
        w("#define TB_PF_%s %d /* %s.%s */" % (macro, field_of(p, msg, name), msg, name))
    for macro, enum, name in ENUMS:
        w("#define TB_PF_%s %d /* %s.%s */" % (macro, p.enums[enum][name], enum, name))
    w("")
    w("/* Fields of the typed events, event by event (tb_pf_events[].first). */")
    w("static const tb_pf_field tb_pf_fields[] = {")
    rows = []
    index = 0
    for name, num, group, fields in events:
        first = index
        for fl in fields:
            kind = kind_of(p, fl["type"])
            w('\t{ "%s", %d, TB_PF_T_%s, %d }, /* %s */'
              % (fl["name"], fl["num"], kind, 1 if fl["repeated"] else 0, name))
            index += 1
        rows.append((name, num, group, first, index - first))
    w("};")
    w("")
    w("/* Typed events, sorted by name (strcmp order) for a binary search. */")
    w("static const tb_pf_event tb_pf_events[] = {")
    for name, num, group, first, n in rows:
        w('\t{ "%s", "%s", %d, %d, %d },' % (name, group, num, first, n))
    w("};")
    w("")
    w("#define TB_PF_NEVENTS %d" % len(rows))
    w("#define TB_PF_NFIELDS %d" % index)
    w("")
    w("#endif /* TB_LIB_PERFETTO_FIELDS_H */")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
