"""One schema (docs/tables.md): the same events through Python's columns() /
df() and through `convert --to parquet` read by DuckDB give the same column
names, types and values, nulls in the same places (an unreadable field is
null in both), and report/raw --json the same values under its own keys."""
import json
import os
import re
import shutil
import struct
import subprocess

import pytest

import tracebound
from conftest import DATA, ROOT, dat_files, run_json

np = pytest.importorskip("numpy")

NODE_DIR = os.path.join(ROOT, "tests", "node")

# DuckDB's name of each numpy dtype the schema uses
DUCK = {"UBIGINT": "uint64", "UINTEGER": "uint32", "USMALLINT": "uint16", "UTINYINT": "uint8",
        "BIGINT": "int64", "INTEGER": "int32", "SMALLINT": "int16", "TINYINT": "int8"}
# columns a dataset may add beside the schema's (the lake's trace id)
DATASET_ONLY = {"__trace_id"}


def duckdb(files):
    """{file: {"columns": [[name, type]], "rows": [[...]]}} as DuckDB reads them."""
    if not shutil.which("node") or not os.path.isdir(
            os.path.join(NODE_DIR, "node_modules", "@duckdb", "node-api")):
        pytest.skip("DuckDB for node is not installed (ci/setup.sh: tests/node)")
    out = subprocess.run(["node", os.path.join(NODE_DIR, "dump_table.mjs")] + list(files),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def convert(cli, out, *args):
    r = subprocess.run([cli, "convert", "--to", "parquet"] + list(args[:-1]) + [out] +
                       list(args[-1]), capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    found = []
    for d, _, names in os.walk(out):
        found += [os.path.join(d, n) for n in names if n.endswith(".parquet")]
    return found


def table_file(files, out, system, name):
    """The Parquet file of one event type, wherever the layout puts it."""
    key = re.escape("%s-%s" % (system, name))
    hits = [f for f in files if re.search(r"(^|[/=])" + key + r"(\.parquet$|/)",
                                          os.path.relpath(f, out))]
    assert len(hits) == 1, (system, name, hits)
    return hits[0]


def py_values(col):
    """A column as Python values, None where null."""
    if isinstance(col, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(col)
        data = col.data.tolist()
        if col.ndim == 2:
            return [None if m.any() else r for r, m in zip(data, mask)]
        return [None if m else v for v, m in zip(data, mask)]
    return col.tolist()


def duck_values(rows, i, typ):
    def conv(v):
        if v is None or typ == "VARCHAR":
            return v
        if typ.endswith("[]"):
            return [int(x) for x in v]
        return int(v)
    return [conv(r[i]) for r in rows]


def same_table(cols, duck, what):
    names = [n for n, _ in duck["columns"] if n not in DATASET_ONLY]
    assert names == list(cols), what
    for i, (name, typ) in enumerate(duck["columns"]):
        if name in DATASET_ONLY:
            continue
        col = cols[name]
        if typ.endswith("[]"):
            assert col.dtype == object or (col.ndim == 2 and str(col.dtype) == DUCK[typ[:-2]]), \
                (what, name, typ, col.dtype)
        elif typ == "VARCHAR":
            assert col.dtype == object, (what, name)
        elif typ == "BLOB":
            continue  # text that is not UTF-8: bytes there, str (surrogateescape) here
        else:
            assert str(col.dtype) == DUCK[typ], (what, name, typ, col.dtype)
        assert py_values(col) == duck_values(duck["rows"], i, typ), (what, name)


def test_samples_equal_parquet(cli, tmp_path):
    """Every table of every sample: names, types and values as DuckDB reads them."""
    for path in dat_files()[:2]:
        out = str(tmp_path / os.path.basename(path))
        files = convert(cli, out, (path,))
        with tracebound.open(path) as t:
            tables = t.columns()
            system_of = {}
            for system, name, _ in t.event_types():
                system_of.setdefault(name, set()).add(system)
        where = {}
        for key in tables:
            system, name = key.split(":") if ":" in key else (None, key)
            system = system or next(iter(system_of[name]))
            where[key] = table_file(files, out, system, name)
        duck = duckdb(list(where.values()) +
                      [f for f in files if os.path.basename(f) == "events.parquet"])
        assert len(tables) > 100
        for key, cols in tables.items():
            same_table(cols, duck[where[key]], key)
        # the events table starts with the same session columns
        ev = [v for f, v in duck.items() if os.path.basename(f) == "events.parquet"]
        assert ev and [c for c in ev[0]["columns"][:7]] == \
            duck[where["sched_switch"]]["columns"][:7]
        assert [n for n, _ in ev[0]["columns"][:7]] == list(tracebound.SESSION_COLUMNS)


FORMAT = """name: %s
ID: %d
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

%s
print fmt: "x"
"""
TBTEST = FORMAT % ("tbtest", 1000, """\tfield:__data_loc u32[] vals;\toffset:8;\tsize:4;\tsigned:0;
\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;
\tfield:int fixed[3];\toffset:16;\tsize:12;\tsigned:1;
\tfield:u64 big;\toffset:28;\tsize:8;\tsigned:0;
""")
# fields named like session columns: a reserved name, a kprobe's, a plain one
CLASH = FORMAT % ("tbclash", 1001, """\tfield:int __ts;\toffset:8;\tsize:4;\tsigned:1;
\tfield:unsigned long __probe_ip;\toffset:12;\tsize:8;\tsigned:0;
\tfield:char comm[8];\toffset:20;\tsize:8;\tsigned:0;
\tfield:int pid;\toffset:28;\tsize:4;\tsigned:1;
""")


def tbtest(pid, vals, name, fixed, big):
    data = struct.pack("<%dI" % len(vals), *vals)
    text = name.encode() + b"\0"
    rec = struct.pack("<HBBiII3iQ", 1000, 0, 0, pid, (len(data) << 16) | 36,
                      (len(text) << 16) | (36 + len(data)), *fixed, big) + data + text
    return rec + b"\0" * (-len(rec) % 4)


def page(ts, records):
    body = b""
    for delta, rec in records:
        assert len(rec) % 4 == 0 and 4 <= len(rec) <= 28 * 4
        body += struct.pack("<I", (delta << 5) | (len(rec) // 4)) + rec
    return (struct.pack("<QQ", ts, len(body)) + body).ljust(4096, b"\0")


@pytest.fixture
def damaged_fields(tmp_path):
    """A raw dump whose records do not all hold their fields."""
    d = tmp_path / "dump"
    for name, text in (("tbtest", TBTEST), ("tbclash", CLASH)):
        (d / "events" / "tb" / name).mkdir(parents=True)
        (d / "events" / "tb" / name / "format").write_text(text)
    for f in ("header_page", "subbuf_kb"):
        shutil.copy(os.path.join(DATA, "raw-sched4k", f), str(d / f))
    recs = [
        (0, tbtest(42, [1, 2, 0xffffffff], "hello", [-1, 0, 7], 2**64 - 1)),
        # both dynamic fields point past the record
        (1, struct.pack("<HBBiII3iQ", 1000, 0, 0, 43, (4 << 16) | 200, (6 << 16) | 300,
                        3, 4, 5, 6)),
        # too short for fixed and big
        (1, struct.pack("<HBBiII4x", 1000, 0, 0, 44, 20, 20)),
        # too short for common_pid: __pid and __comm null
        (1, struct.pack("<HBB", 1000, 0, 0)),
        (1, struct.pack("<HBBiiQ8si", 1001, 0, 0, 0, -5, 0xffffffff81000000, b"cat",
                        77)),
    ]
    (d / "cpu0.raw").write_bytes(page(1000, recs))
    return str(d)


def test_unreadable_fields_null_in_both(cli, damaged_fields, tmp_path):
    d = damaged_fields
    out = str(tmp_path / "pq")
    files = convert(cli, out, "--events", os.path.join(d, "events"), "--header-page",
                    os.path.join(d, "header_page"), (os.path.join(d, "cpu0.raw"),))
    with tracebound.open(d) as t:
        c = t.columns("tbtest")
        k = t.columns("tbclash")
        df = t.df("tbtest")
    pt, pk = table_file(files, out, "tb", "tbtest"), table_file(files, out, "tb", "tbclash")
    duck = duckdb([pt, pk])
    same_table(c, duck[pt], "tbtest")
    same_table(k, duck[pk], "tbclash")
    # the values themselves
    assert py_values(c["vals"]) == [[1, 2, 0xffffffff], None, [], None]
    assert py_values(c["name"]) == ["hello", None, "", None]
    assert py_values(c["fixed"]) == [[-1, 0, 7], [3, 4, 5], None, None]
    assert py_values(c["big"]) == [2**64 - 1, 6, None, None]
    assert py_values(c["__pid"]) == [42, 43, 44, None]
    assert py_values(c["__comm"]) == [None, None, None, None]   # raw dumps: no cmdlines
    assert py_values(c["common_pid"]) == [42, 43, 44, None]
    assert isinstance(c["big"], np.ma.MaskedArray) and c["big"].dtype == np.uint64
    assert not isinstance(c["__ts"], np.ma.MaskedArray)
    assert py_values(c["__subbuf"]) == [0] * 4
    offs = py_values(c["__offset"])
    assert offs == sorted(set(offs)) and len(offs) == 4
    # a reserved name is "field:NAME"; other fields keep theirs
    assert list(k)[7:] == ["common_type", "common_flags", "common_preempt_count",
                           "common_pid", "field:__ts", "__probe_ip", "comm", "pid"]
    assert py_values(k["field:__ts"]) == [-5] and py_values(k["__ts"]) == [1004]
    assert py_values(k["__probe_ip"]) == [0xffffffff81000000]
    assert py_values(k["comm"]) == ["cat"] and py_values(k["__pid"]) == [0]
    assert py_values(k["__comm"]) == ["<idle>"]
    # DataFrames: a number column with a null has pandas' nullable dtype
    pytest.importorskip("pandas")
    assert str(df["big"].dtype) == "UInt64" and str(df["__pid"].dtype) == "Int32"
    assert str(df["__ts"].dtype) == "uint64"
    assert df["big"].isna().tolist() == [False, False, True, True]
    assert df["fixed"].tolist()[1:] == [[3, 4, 5], None, None]
    assert df["vals"].tolist()[1] is None
    # raw --json: the same values, key K for column __K, fields under "fields"
    ref = [o for o in run_json(cli, "raw", "--json", "--events", os.path.join(d, "events"),
                               "--header-page", os.path.join(d, "header_page"),
                               os.path.join(d, "cpu0.raw")) if o.get("name") == "tbtest"]
    for key in ("ts", "cpu", "pid", "comm", "subbuf", "offset"):
        assert py_values(c["__" + key]) == [o[key] for o in ref], key
    for f in ("common_pid", "vals", "name", "fixed", "big"):
        assert py_values(c[f]) == [o["fields"][f] for o in ref], f
