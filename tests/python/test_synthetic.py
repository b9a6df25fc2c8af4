"""Field kinds the real captures lack (dynamic non-text arrays), in a raw
dump written here from the ftrace page layout: a custom event format with
__data_loc arrays, a fixed array and a u64, two events on one page."""
import os
import struct
import time

import pytest

import tracebound
from conftest import DATA

FORMAT = """name: tbtest
ID: 1000
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:__data_loc u32[] vals;\toffset:8;\tsize:4;\tsigned:0;
\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;
\tfield:int fixed[3];\toffset:16;\tsize:12;\tsigned:1;
\tfield:u64 big;\toffset:28;\tsize:8;\tsigned:0;

print fmt: "name=%s big=%llu", __get_str(name), REC->big
"""


def record(pid, vals, name, fixed, big):
    data = struct.pack("<%dI" % len(vals), *vals)
    text = name.encode() + b"\0"
    vals_off, name_off = 36, 36 + len(data)
    rec = struct.pack("<HBBiII3iQ", 1000, 0, 0, pid,
                      (len(data) << 16) | vals_off, (len(text) << 16) | name_off,
                      *fixed, big) + data + text
    return rec + b"\0" * (-len(rec) % 4)


def page(ts, records):
    body = b""
    for delta, rec in records:
        assert len(rec) <= 28 * 4
        body += struct.pack("<I", (delta << 5) | (len(rec) // 4)) + rec
    head = struct.pack("<QQ", ts, len(body))
    return (head + body).ljust(4096, b"\0")


@pytest.fixture
def dump(tmp_path):
    d = tmp_path / "dump"
    (d / "events" / "tbtest" / "tbtest").mkdir(parents=True)
    (d / "events" / "tbtest" / "tbtest" / "format").write_text(FORMAT)
    for f in ("header_page", "subbuf_kb"):
        (d / f).write_bytes(open(os.path.join(DATA, "raw-sched4k", f), "rb").read())
    recs = [(0, record(42, [1, 2, 0xffffffff], "hello", [-1, 0, 7], 2**64 - 1)),
            (5, record(43, [], "", [3, 4, 5], 12345))]
    (d / "cpu0.raw").write_bytes(page(1000, recs))
    return str(d)


def test_iteration(dump):
    with tracebound.open(dump) as t:
        evs = list(t)
    assert [(e.ts, e.pid, e.name) for e in evs] == [(1000, 42, "tbtest"), (1005, 43, "tbtest")]
    f = evs[0].fields
    assert f["vals"] == [1, 2, 0xffffffff]
    assert f["name"] == "hello" and f["fixed"] == [-1, 0, 7] and f["big"] == 2**64 - 1
    assert evs[1].fields["vals"] == [] and evs[1].fields["name"] == ""
    assert evs[0].text() == "name=hello big=18446744073709551615"


def test_columns(dump):
    np = pytest.importorskip("numpy")
    with tracebound.open(dump) as t:
        c = t.columns("tbtest")
        evs = list(t)
    assert c["big"].dtype == np.uint64 and c["big"].tolist() == [2**64 - 1, 12345]
    assert c["fixed"].shape == (2, 3) and c["fixed"].dtype == np.int32
    assert c["fixed"].tolist() == [[-1, 0, 7], [3, 4, 5]]
    assert c["vals"].dtype == object and c["vals"].tolist() == [[1, 2, 0xffffffff], []]
    assert c["name"].tolist() == ["hello", ""]
    for k in evs[0].fields:
        assert c[k].tolist() == [e.fields[k] for e in evs], k


def test_dataframe(dump):
    pytest.importorskip("pandas")
    with tracebound.open(dump) as t:
        df = t.df("tbtest")
    assert df["fixed"].tolist() == [[-1, 0, 7], [3, 4, 5]]
    assert df["vals"].tolist() == [[1, 2, 0xffffffff], []]
    assert str(df["big"].dtype) == "uint64"


def test_the_gil_is_released_while_decoding(tmp_path, dump):
    """A column pass over ~0.7 M events in one thread; the main thread
    keeps running Python meanwhile (it could not if the walk held the GIL)."""
    import threading
    d = tmp_path / "big"
    d.mkdir()
    src = os.path.dirname(os.path.join(dump, "x"))
    for f in ("header_page", "subbuf_kb"):
        (d / f).write_bytes(open(os.path.join(src, f), "rb").read())
    os.symlink(os.path.join(src, "events"), str(d / "events"))
    rec = record(7, [1, 2, 3], "big", [1, 2, 3], 9)
    per_page = (4096 - 16) // (len(rec) + 4)
    one = page(0, [(1, rec)] * per_page)
    pages = 10000
    with open(str(d / "cpu0.raw"), "wb") as f:
        for i in range(pages):
            f.write(struct.pack("<Q", i * 1000) + one[8:])
    t = tracebound.open(str(d))
    done = threading.Event()
    out = {}

    def work():
        t0 = time.perf_counter()
        out["cols"] = t._columns("tbtest")
        out["took"] = time.perf_counter() - t0
        done.set()

    # the longest the main thread waits between two of its steps: with the
    # GIL held by the walk, that would be the whole walk
    th = threading.Thread(target=work)
    last, gap = time.perf_counter(), 0.0
    th.start()
    while not done.is_set():
        now = time.perf_counter()
        gap = max(gap, now - last)
        last = now
    th.join()
    rows = out["cols"][0][0][2]
    assert rows == pages * per_page
    assert gap < out["took"] / 3, (gap, out["took"])
