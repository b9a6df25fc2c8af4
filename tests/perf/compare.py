#!/usr/bin/env python3
"""tracebound against perf on one perf.data (tests/perf/compare.sh runs it).

  compare.py TRACEBOUND FILE.data [--kallsyms FILE]

Lines: every sample line of `tracebound report` against `perf script`'s,
byte for byte up to the event's text (comm, tid, [cpu], time, name and
padding) and whole; callchain lines by address (kernel frames whole with
--kallsyms).  Values: every `report --json` object against perf's Python
scripting (oracle.py): cpu, time, tid, period, every field, every
callchain address.  Drops: the samples LOST and LOST_SAMPLES records
count, summed, against perf's raw dump (`perf report -D`).  Prints the figures and every difference counted by kind; exit 1 on a
difference of a kind the docs do not list (docs/perfdata.md,
"Differences with perf script") or under 99% of whole lines identical.
"""
import collections
import json
import re
import subprocess
import sys

HERE = sys.path[0]


def run(args, stdin=None):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=stdin,
                       check=False)
    return p.stdout.decode("utf-8", errors="surrogateescape")


def blocks(lines):
    """(sample line, its callchain lines) in order."""
    out = []
    for l in lines:
        if l.startswith("\t"):
            if out:
                out[-1][1].append(l)
        elif l:
            out.append((l, []))
    return out


def head_len(line):
    i = line.index("]")
    i = line.index(": ", i) + 2
    return line.index(": ", i) + 2


ADDR = re.compile(r"^(\w+=)?0xffffffff[0-9a-f]{8}$")


def text_kind(a, b):
    """The listed kind of a text difference of two lines with the same
    head (docs/perfdata.md), or None."""
    name = b[:head_len(b)].rstrip(": ").split()[-1]
    pairs = [(x, y) for x, y in zip(a.split(" "), b.split(" ")) if x != y]
    if len(a.split(" ")) != len(b.split(" ")) or not pairs:
        return None
    if name == "timer:timer_start" and all(y.startswith("flags=") for _, y in pairs):
        return "timer_start flags= (perf: the mask misread)"
    if all(ADDR.match(x) and not ADDR.match(y) for x, y in pairs):
        return "kernel symbol perf names and tracebound has no kallsyms for"
    return None


def value_kind(w, v):
    """The listed kind of a value difference (ours w, perf's v), or None."""
    if (isinstance(w, int) and isinstance(v, int) and w < 0 and
            any(v == w + (1 << bits) for bits in (8, 16, 32))):
        return "a negative signed field under 8 bytes: perf's Python gives it unsigned"
    if isinstance(w, str) and isinstance(v, str) and "\0" in v and v.split("\0")[0] == w:
        return "a char array: perf's Python gives the bytes after its NUL too"
    return None


def drops(tb, path):
    """(ours, perf's): samples lost, summed over LOST and LOST_SAMPLES."""
    m = re.search(r"^dropped: (\d+)", run([tb, "stats", path]), re.M)
    theirs = 0
    for l in run(["perf", "report", "-D", "-i", path]).split("\n"):
        if "PERF_RECORD_LOST_SAMPLES:" in l:
            theirs += int(l.rsplit("lost samples :", 1)[1])
        elif "PERF_RECORD_LOST:" in l:
            theirs += int(l.rsplit("lost:", 1)[1])
    return (int(m.group(1)) if m else -1), theirs


def main():
    tb, path = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    ours = [l for l in run([tb, "report"] + extra + [path]).split("\n")
            if not (l.startswith("CPU:") and "EVENTS DROPPED]" in l)]
    perf = run(["perf", "script", "-i", path]).split("\n")
    bad = 0
    samples = same = frames = frames_same = nochain = 0
    kinds = collections.Counter()
    a_s, b_s = blocks(ours), blocks(perf)
    if len(a_s) != len(b_s):
        print("%s: %d samples, perf script %d" % (path, len(a_s), len(b_s)))
        bad += 1
    for (a, af), (b, bf) in zip(a_s, b_s):
        samples += 1
        if a == b:
            same += 1
        elif a[:head_len(b)] != b[:head_len(b)]:
            bad += 1
            if bad < 5:
                print("head:\n  %s\n  %s" % (a, b))
        else:
            k = text_kind(a, b)
            kinds[k or "UNLISTED"] += 1
            if not k:
                bad += 1
                if bad < 5:
                    print("text:\n  %s\n  %s" % (a, b))
        if af and not bf:
            nochain += 1  # perf could not resolve it (a task without maps)
            continue
        for x, y in zip(af, bf):
            if not y.lstrip("\t").startswith("ffff"):
                continue  # perf shows user frames map-relative: not compared
            frames += 1
            if x[:18] == y[:18] and (not extra or x == y):
                frames_same += 1
            else:
                bad += 1
                if bad < 5:
                    print("frame:\n  %s\n  %s" % (x, y))
    pct = 100.0 * same / samples if samples else 100.0
    print("%s: lines: %d samples, every head identical: %s, whole line identical: %d (%.2f%%)"
          "%s%s" % (path, samples, "yes" if not bad else "NO", same, pct,
                    ", kernel frames identical %d of %d" % (frames_same, frames) if frames else "",
                    ", %d callchains perf does not print" % nochain if nochain else ""))
    for k, n in sorted(kinds.items(), key=lambda x: -x[1]):
        print("%s:   text differs: %d lines: %s" % (path, n, k))
    if pct < 99.0 or not samples:
        bad += 1
    js = [json.loads(l) for l in run([tb, "report", "--json", path]).split("\n") if l]
    js = [o for o in js if "ts" in o and "damaged" not in o]
    oracle = [json.loads(l) for l in run(["perf", "script", "-i", path, "-s",
                                          HERE + "/oracle.py"]).split("\n")
              if l.startswith("{")]
    vals = diffs = chains = 0
    vkinds = collections.Counter()
    if len(js) != len(oracle):
        print("%s: %d JSON objects, perf's scripting %d" % (path, len(js), len(oracle)))
        bad += 1
    for o, r in zip(js, oracle):
        if r["name"] != "%s__%s" % (o["system"], o["name"]):
            diffs += 1
            continue
        # perf's scripting hands the tid as the record's u32 (-1: 4294967295)
        for k, ok in (("cpu", o["cpu"]), ("ts", o["ts"]), ("tid", o["tid"] & 0xffffffff),
                      ("period", o["period"])):
            vals += 1
            if r[k] != ok:
                diffs += 1
                if diffs < 5:
                    print("value %s.%s: ours %r perf %r" % (o["name"], k, ok, r[k]))
        for k, v in r["fields"].items():
            vals += 1
            w = o["fields"].get(k)
            if isinstance(v, str) and isinstance(w, str):
                w = w.rstrip("\0")
            if w != v:
                vk = value_kind(w, v)
                vkinds[vk or "UNLISTED"] += 1
                if vk:
                    continue
                diffs += 1
                if diffs < 5:
                    print("value %s.%s: ours %r perf %r" % (o["name"], k, w, v))
        if "callchain" in o and "callchain" not in r:
            continue  # perf could not resolve it (see the lines above)
        if "callchain" in r or "callchain" in o:
            chains += 1
            if r.get("callchain") != o.get("callchain"):
                diffs += 1
                if diffs < 5:
                    print("callchain of %s at %d differs" % (o["name"], o["ts"]))
    print("%s: values: %d objects, %d values, %d callchains against perf's Python scripting: "
          "%d differ" % (path, len(js), vals, chains, diffs))
    for k, n in sorted(vkinds.items(), key=lambda x: -x[1]):
        print("%s:   values differ: %d: %s" % (path, n, k))
    ours, theirs = drops(tb, path)
    print("%s: drops: %d samples lost, perf report -D: %d" % (path, ours, theirs))
    if ours != theirs:
        bad += 1
    return 1 if bad or diffs else 0


if __name__ == "__main__":
    sys.exit(main())
