"""One raw-dump folder through every door (issue 39, include/tracebound/source.h):
`raw`, `check`, `report`, `convert --to parquet`, `convert --to perfetto`
and Python give the same events, for a little-endian 4 KiB dump (the
sample), the same events in 16 KiB sub-buffers (bench/repage.py) laid out as
docs/python.md says (header_page beside the dumps, events/), and a
big-endian dump built here by the spec (shared/specs/ftrace-formats.md 1.1).
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys

import pytest

import tracebound
from conftest import DATA, ROOT

HP = os.path.join(DATA, "raw-sched4k", "header_page")

# (declaration, offset, size, signed) of each field of test/tick
TICK_FIELDS = [("unsigned short common_type", 0, 2, 0), ("unsigned char common_flags", 2, 1, 0),
               ("unsigned char common_preempt_count", 3, 1, 0), ("int common_pid", 4, 4, 1),
               None, ("unsigned int value", 8, 4, 0)]
TICK = "name: tick\nID: 42\nformat:\n" + "".join(
    "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n" % f if f else "\n" for f in TICK_FIELDS) + \
    '\nprint fmt: "value=%u", REC->value\n'


def _run(cli, *args):
    p = subprocess.run([cli] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0, (args, p.stderr.decode(errors="replace")[-2000:])
    return p.stdout.decode(errors="surrogateescape"), p.stderr.decode(errors="replace")


def build_dump(big_endian, cpu, n, subbuf=4096):
    """n `tick` events (value = cpu * 100000 + i, 1000 ns apart) in
    sub-buffers of a 64-bit kernel: u64 time, u64 commit, then records of a
    u32 header (type_len 3: 12 bytes of payload) and the payload."""
    e = ">" if big_endian else "<"
    out = bytearray()
    ts0 = 5_000_000 + cpu * 333
    i = 0
    while i < n:
        page = bytearray()
        first = ts0 + i * 1000
        prev = first
        while i < n and 16 + len(page) + 16 <= subbuf:
            ts = ts0 + i * 1000
            delta = ts - prev
            word = (3 << 27 | delta) if big_endian else (delta << 5 | 3)
            page += struct.pack(e + "IHBBiI", word, 42, 0, 0, 1000 + cpu, cpu * 100000 + i)
            prev = ts
            i += 1
        out += struct.pack(e + "QQ", first, len(page)) + page + bytes(subbuf - 16 - len(page))
    return bytes(out)


@pytest.fixture(scope="module")
def folders(tmp_path_factory, events_dir):
    base = tmp_path_factory.mktemp("sources")
    made = {}
    # the sample, little-endian 4 KiB, laid out as docs/python.md says
    d = base / "le4k"
    d.mkdir()
    for f in ("cpu0.raw", "cpu1.raw", "header_page"):
        shutil.copy(os.path.join(DATA, "raw-sched4k", f), d)
    shutil.copytree(events_dir, d / "events")
    made["le4k"] = str(d)
    # the same events in 16 KiB sub-buffers: a header_page that says so, no subbuf_kb
    d = base / "le16k"
    d.mkdir()
    for c in (0, 1):
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "repage.py"), "16384",
                        os.path.join(DATA, "raw-sched4k", "cpu%d.raw" % c),
                        str(d / ("cpu%d.raw" % c))], check=True)
    (d / "header_page").write_text(open(HP).read().replace("size:4080", "size:16368"))
    shutil.copytree(events_dir, d / "events")
    made["le16k"] = str(d)
    # big-endian, hand-built: 3 pages on CPU 0, 2 on CPU 1
    d = base / "be4k"
    d.mkdir()
    (d / "cpu0.raw").write_bytes(build_dump(True, 0, 600))
    (d / "cpu1.raw").write_bytes(build_dump(True, 1, 300))
    shutil.copy(HP, d)
    (d / "events" / "test" / "tick").mkdir(parents=True)
    (d / "events" / "test" / "tick" / "format").write_text(TICK)
    made["be4k"] = str(d)
    return made


def _key(o):
    return (o["ts"], o["cpu"], o["id"])


@pytest.mark.parametrize("kind,count", [("le4k", 53737), ("le16k", 53737), ("be4k", 900)])
def test_one_folder_every_door(cli, folders, tmp_path, kind, count):
    d = folders[kind]
    # Python
    t = tracebound.open(d)
    py = sorted((ev.ts, ev.cpu, ev.id) for ev in t)
    assert len(py) == count
    if kind == "be4k":
        values = sorted(ev["value"] for ev in t)
        assert values == sorted([i for i in range(600)] + [100000 + i for i in range(300)])
    # report --json and raw --json: the same events, one object each
    rep = sorted(_key(json.loads(x)) for x in _run(cli, "report", "--json", d)[0].splitlines())
    assert rep == py
    raw = sorted(_key(json.loads(x)) for x in _run(cli, "raw", "--json", d)[0].splitlines())
    assert raw == py
    # raw on the dumps named one by one, with --events: the same rule
    dumps = sorted(glob.glob(os.path.join(d, "cpu*.raw")))
    out = _run(cli, "raw", "--json", "--events", os.path.join(d, "events"), *dumps)[0]
    assert sorted(_key(json.loads(x)) for x in out.splitlines()) == py
    # check: each dump sound, its events counted
    out = _run(cli, "check", d)[0]
    counted = sum(int(line.split(" events,")[0].rsplit(" ", 1)[1])
                  for line in out.splitlines() if " events," in line)
    assert counted == count and "anomalies: ok" in out and "MALFORMED" not in out
    # stats: the count, and its layout line
    out = _run(cli, "stats", d)[0]
    assert "\nevents: %d\n" % count in out
    assert "byte order: %s-endian\n" % ("big" if kind == "be4k" else "little") in out
    # convert --to parquet: its metadata's rows; convert --to perfetto: -v's count
    _run(cli, "convert", "--to", "parquet", str(tmp_path / "pq"), d)
    (meta,) = glob.glob(str(tmp_path / "pq" / "*" / "metadata.json"))
    m = json.load(open(meta))
    assert m["events"] == count and m["malformed_pages"] == 0
    assert {x["file"]: x["rows"] for x in m["tables"]}["events.parquet"] == count
    err = _run(cli, "convert", "--to", "perfetto", "-v", str(tmp_path / "t.pftrace"), d)[1]
    assert "tracebound: %d events (" % count in err
    # the dumps named one by one with --events, to Parquet: the same
    _run(cli, "convert", "--to", "parquet", "--events", os.path.join(d, "events"),
         str(tmp_path / "pq2"), *dumps)
    (meta,) = glob.glob(str(tmp_path / "pq2" / "*" / "metadata.json"))
    assert json.load(open(meta))["events"] == count
