"""Damaged input raises tracebound.Error and never crashes the interpreter."""
import glob
import os

import pytest

import tracebound
from conftest import DATA, ROOT, dat_files

CORPUS = sorted(glob.glob(os.path.join(ROOT, "corpus", "tracedat", "*")))


def walk(path, **kw):
    """open() and full iteration, every field and rendering read."""
    n = 0
    with tracebound.open(path, **kw) as t:
        t.cpus, t.clock, t.uname, t.event_types()
        it = iter(t)
        while True:
            try:
                e = next(it)
            except StopIteration:
                break
            except tracebound.Error:
                if not kw.get("skip_damaged"):
                    raise
                continue
            e.fields, e.text(), e.text("fields"), e.text("json"), e.comm, e.name
            n += 1
    return n


def test_corpus_is_there():
    assert len(CORPUS) > 100


@pytest.mark.parametrize("skip", [False, True], ids=["strict", "skip_damaged"])
def test_every_corpus_tracedat(skip):
    outcomes = {"ok": 0, "error": 0}
    for path in CORPUS:
        try:
            walk(path, skip_damaged=skip)
            outcomes["ok"] += 1
        except tracebound.Error as e:
            assert isinstance(e.status, str) and isinstance(e.offset, int) and e.what
            assert str(e)
            outcomes["error"] += 1
    assert outcomes["error"] > 0 and outcomes["ok"] > 0, outcomes


def test_columns_on_the_corpus():
    pytest.importorskip("numpy")
    for path in CORPUS[::3]:
        try:
            with tracebound.open(path, skip_damaged=True) as t:
                t.columns()
        except tracebound.Error:
            pass


def test_every_prefix_of_a_real_capture(tmp_path):
    """Truncated captures (every 4099th prefix of the zstd sample)."""
    data = open(dat_files()[0], "rb").read()
    p = tmp_path / "cut.dat"
    errors = 0
    for n in list(range(0, len(data), 4099)) + [len(data) - 1]:
        p.write_bytes(data[:n])
        try:
            walk(str(p))
        except tracebound.Error:
            errors += 1
    assert errors > 0


def test_error_attributes(tmp_path):
    p = tmp_path / "bad.dat"
    p.write_bytes(b"\x17\x08\x44tracing6\x00" + b"\xff" * 40)
    with pytest.raises(tracebound.Error) as ei:
        tracebound.open(str(p))
    e = ei.value
    assert e.status in ("truncated", "length", "range", "value", "magic", "version")
    assert e.offset >= 0 and isinstance(e.what, str) and e.what
    assert e.what in str(e)


def test_flipped_bytes_in_event_data(tmp_path):
    """Bytes flipped all over the page data: an Error or a clean walk."""
    data = bytearray(open(os.path.join(DATA, "sched4k.v7zstd.dat"), "rb").read())
    import random
    rnd = random.Random(13)
    p = tmp_path / "flip.dat"
    for _ in range(30):
        d = bytearray(data)
        for _ in range(20):
            i = rnd.randrange(len(d))
            d[i] ^= 1 << rnd.randrange(8)
        p.write_bytes(bytes(d))
        try:
            walk(str(p), skip_damaged=True)
        except tracebound.Error:
            pass


def test_not_found():
    with pytest.raises(FileNotFoundError):
        tracebound.open("/nonexistent/trace.dat")


def test_check_sound_and_damaged(tmp_path):
    for path in dat_files():
        assert tracebound.check(path) == []
    data = open(dat_files()[0], "rb").read()
    p = tmp_path / "cut.dat"
    p.write_bytes(data[: len(data) * 2 // 3])
    found = tracebound.check(str(p))
    assert found and all({"where", "status", "offset", "what"} <= set(a) for a in found)
    p.write_bytes(b"hello world, not a capture")
    assert tracebound.check(str(p))[0]["where"] == "file"
    assert tracebound.check(str(p))[0]["what"].startswith("not recognised")
    # an empty file is said to be empty, as `tracebound check` says it
    p.write_bytes(b"")
    (found,) = tracebound.check(str(p))
    assert (found["where"], found["offset"]) == ("file", 0)
    assert found["what"].startswith("empty input"), found



def test_check_agrees_with_the_cli(cli):
    """check() finds anomalies exactly where `tracebound check` exits 1."""
    import subprocess
    files = CORPUS[::5] + dat_files()
    verdicts = set()
    for path in files:
        rc = subprocess.run([cli, "check", path], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
        assert rc in (0, 1)
        found = tracebound.check(path)
        assert bool(found) == (rc == 1), (path, found[:3])
        verdicts.add(rc)
    assert verdicts == {0, 1}


def _raw_dir(tmp_path, cpu_bytes, events_dir, raw_dir):
    d = tmp_path / "dump"
    d.mkdir(exist_ok=True)
    (d / "cpu0.raw").write_bytes(cpu_bytes)
    for f in ("header_page", "subbuf_kb"):
        (d / f).write_bytes(open(os.path.join(raw_dir, f), "rb").read())
    return str(d)


@pytest.fixture(scope="module")
def small_events(tmp_path_factory, events_dir):
    """The formats of the systems the raw dump recorded (sched, syscalls)."""
    import shutil
    ev = tmp_path_factory.mktemp("small") / "events"
    for system in ("sched", "syscalls"):
        shutil.copytree(os.path.join(events_dir, system), ev / system)
    return str(ev)


def test_corpus_kbuf_pages_as_raw_dumps(tmp_path, small_events, raw_dir):
    """Every 4th kbuf corpus file as a CPU's dump: Error or a clean walk."""
    events_dir = small_events
    files = sorted(glob.glob(os.path.join(ROOT, "corpus", "kbuf", "*")))[::4]
    errors = 0
    for path in files:
        d = _raw_dir(tmp_path, open(path, "rb").read(), events_dir, raw_dir)
        for skip in (False, True):
            try:
                walk(d, events=events_dir, skip_damaged=skip)
            except tracebound.Error:
                errors += 1
        tracebound.check(d, events=events_dir)
    assert len(files) > 100 and errors > 0


def test_corpus_formats_in_an_events_directory(tmp_path, small_events, raw_dir):
    """A damaged format text is damage of the capture, never a crash."""
    import shutil
    ev = tmp_path / "events"
    shutil.copytree(small_events, ev)
    target = ev / "sched" / "sched_switch" / "format"
    cpu = open(os.path.join(raw_dir, "cpu1.raw"), "rb").read()
    d = _raw_dir(tmp_path, cpu, str(ev), raw_dir)
    for path in sorted(glob.glob(os.path.join(ROOT, "corpus", "format", "*")))[::8]:
        target.write_bytes(open(path, "rb").read())
        try:
            n = walk(d, events=str(ev))
            assert n > 0
        except tracebound.Error:
            pass


def test_over_the_budget_is_its_own_error(tmp_path):
    """max_memory: a capture that needs more is refused before it costs
    (status "budget", the numbers in the message); the default reads it."""
    path = os.path.join(DATA, "sched4k.v7zstd.dat")
    with pytest.raises(tracebound.Error) as e:
        tracebound.open(path, max_memory=1 << 20)
    assert e.value.status == "budget"
    assert e.value.code == 29
    assert "sound as far as read, but needs " in str(e.value)
    assert "over the budget of 1048576" in str(e.value)
    assert walk(path) == walk(path, max_memory=64 << 20) > 60000


def test_many_strings_sections(tmp_path):
    """Five (and 50) extra STRINGS sections of 16 bytes: read as the capture."""
    import struct
    data = open(os.path.join(DATA, "sched4k.v7zstd.dat"), "rb").read()
    want = walk(os.path.join(DATA, "sched4k.v7zstd.dat"))
    for k in (5, 50):
        p = tmp_path / ("strings%d.dat" % k)
        p.write_bytes(data + (struct.pack("<HHIQ", 15, 0, 0xFFFFFFFF, 16) + b"0123456789abcde\0") * k)
        assert walk(str(p)) == want


def test_damage_is_never_silent(tmp_path):
    """A cut capture raises Error from open() (it opened with 0 events
    before); skip_damaged=True salvages, and what it gives says so."""
    data = open(os.path.join(DATA, "sched4k.v7zstd.dat"), "rb").read()
    p = tmp_path / "cut.dat"
    p.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(tracebound.Error) as ei:
        tracebound.open(str(p))
    e = ei.value
    assert e.damage and {"where", "offset", "status", "what"} <= set(e.damage[0])
    assert "skip_damaged=True" in str(e) and e.what == e.damage[0]["what"]
    assert e.offset == e.damage[0]["offset"]
    # check() lists the same damage
    found = tracebound.check(str(p))
    for d in e.damage:
        assert any(a["offset"] == d["offset"] and a["what"] == d["what"] for a in found), d
    with tracebound.open(str(p), skip_damaged=True) as t:
        assert t.damage() == e.damage
        cols = t.columns()
        assert cols.damage == e.damage and cols.damaged_pages == 0
        if cols:
            assert next(iter(cols.values())).damage == e.damage
    # a sound capture has none
    with tracebound.open(os.path.join(DATA, "sched4k.v7zstd.dat")) as t:
        assert t.damage() == [] and t.columns("sched_switch").damage == []


def test_a_damaged_page_raises_when_met(tmp_path, small_events, raw_dir):
    """Damage in the event data: Error from the walk when the page is met;
    salvaged, the columns and frames count the pages skipped."""
    import struct
    cpu = bytearray(open(os.path.join(raw_dir, "cpu1.raw"), "rb").read())
    cpu[8 + 4096:16 + 4096] = struct.pack("<Q", 0xfffff)  # page 1 commits past its end
    d = _raw_dir(tmp_path, bytes(cpu), small_events, raw_dir)
    with tracebound.open(d, events=small_events) as t:   # open reads no page
        it = iter(t)
        with pytest.raises(tracebound.Error) as ei:
            for _ in it:
                pass
        assert "page 1" in str(ei.value)
        with pytest.raises(tracebound.Error):
            t.columns()
    with tracebound.open(d, events=small_events, skip_damaged=True) as t:
        cols = t.columns()
        assert cols.damaged_pages == 1 and cols.damage == []
        pytest.importorskip("pandas")
        df = t.df("sched_switch")
        assert df.attrs["damaged_pages"] == 1 and len(df) > 0
