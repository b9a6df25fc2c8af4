"""Columns and DataFrames: one walk in C, the same values as iteration."""
import os

import pytest

import tracebound
from conftest import dat_files, fresh_files, run_json

np = pytest.importorskip("numpy")


def expected_columns(events, buffers=("",)):
    """What columns() must hold, computed from iteration."""
    cols = {k: [] for k in tracebound.SESSION_COLUMNS}
    for e in events:
        cols["__ts"].append(e.ts)
        cols["__cpu"].append(e.cpu)
        cols["__pid"].append(e.pid)
        cols["__comm"].append(e.comm)
        cols["__buffer"].append(buffers[e.buffer])
        cols["__subbuf"].append(e.subbuf)
        cols["__offset"].append(e.offset)
        for k, v in e.fields.items():
            cols.setdefault(k, []).append(v)
    return cols


@pytest.mark.parametrize("path", dat_files() + fresh_files(), ids=os.path.basename)
def test_every_type_equals_iteration(path):
    with tracebound.open(path) as t:
        by_type = {}
        for e in t:
            by_type.setdefault(e.name, []).append(e)
        tables = t.columns()
        buffers = [b["name"] for b in t.info["buffers"]]
    assert sorted(tables) == sorted(by_type)
    for name, events in by_type.items():
        want = expected_columns(events, buffers)
        got = tables[name]
        assert list(got) == list(want), name
        for k, v in want.items():
            col = got[k]
            assert len(col) == len(v)
            assert col.tolist() == v, (name, k)


def test_sched_switch_types_and_cli(cli):
    path = dat_files()[0]
    with tracebound.open(path) as t:
        c = t.columns("sched_switch")
        rt = t.columns("sched_stat_runtime")
    assert c["__ts"].dtype == np.uint64
    assert c["__cpu"].dtype == np.uint32
    assert c["next_pid"].dtype == np.int32 and c["prev_prio"].dtype == np.int32
    assert c["prev_state"].dtype == np.int64      # long
    assert c["common_type"].dtype == np.uint16
    assert c["prev_comm"].dtype == object and isinstance(c["prev_comm"][0], str)
    assert rt["runtime"].dtype == np.uint64       # u64 stays uint64
    assert len(c["__ts"]) == 968
    ref = [o for o in run_json(cli, "report", "--json", "--events", "sched_switch", path)
           if "ts" in o]
    assert c["__ts"].tolist() == [o["ts"] for o in ref]
    assert c["__comm"].tolist() == [o["comm"] for o in ref]
    assert c["__pid"].tolist() == [o["pid"] for o in ref]
    if ref and "fields" in ref[0]:
        for k in ref[0]["fields"]:
            assert c[k].tolist() == [o["fields"][k] for o in ref], k


def test_raw_dump_columns_equal_raw_json(cli, raw_dir, events_dir):
    cpus = sorted(f for f in os.listdir(raw_dir) if f.endswith(".raw"))
    ref = [o for o in run_json(cli, "raw", "--json", "--events", events_dir,
                               *[os.path.join(raw_dir, c) for c in cpus])
           if o.get("name") == "sched_switch"]
    with tracebound.open(raw_dir, events=events_dir) as t:
        c = t.columns("sched:sched_switch")
    got = sorted(zip(c["__cpu"].tolist(), c["__ts"].tolist(), c["next_comm"].tolist(),
                     c["prev_pid"].tolist()))
    want = sorted((o["cpu"], o["ts"], o["fields"]["next_comm"], o["fields"]["prev_pid"])
                  for o in ref)
    assert got == want and len(want) > 100


def test_filters_apply_to_columns():
    path = dat_files()[0]
    with tracebound.open(path) as t:
        ts = [e.ts for e in t.events(name="sched_switch", cpus=[0])]
        lo, hi = ts[10], ts[-10]
        c = t.columns("sched_switch", cpus=[0], start=lo, end=hi)
        assert c["__ts"].tolist() == [x for x in ts if lo <= x < hi]
        assert set(c["__cpu"].tolist()) == {0}
        # a type without events in the selection: empty, still typed
        e = t.columns("sched_switch", start=0, end=1)
        assert len(e["__ts"]) == 0 and e["next_pid"].dtype == np.int32


def test_dataframes():
    pd = pytest.importorskip("pandas")
    path = dat_files()[0]
    with tracebound.open(path) as t:
        df = t.df("sched_switch")
        c = t.columns("sched_switch")
        dfs = t.dfs()
    assert isinstance(df, pd.DataFrame) and len(df) == 968
    assert list(df.columns) == list(c)
    assert str(df["__ts"].dtype) == "uint64"
    assert df["next_comm"].tolist() == c["next_comm"].tolist()
    assert set(dfs) == set(t for t in dfs) and "sched_switch" in dfs
    assert dfs["sched_switch"].equals(df)
    busiest = df.groupby("next_comm").size().sort_values(ascending=False)
    assert busiest.index[0] == "swapper/1" or busiest.index[0].startswith("swapper")


def test_columns_from_threads():
    import threading
    path = dat_files()[0]
    with tracebound.open(path) as t:
        want = t.columns("sched_switch")["next_comm"].tolist()
        got = [None] * 3

        def work(i):
            got[i] = t.columns("sched_switch")["next_comm"].tolist()
        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert got == [want] * 3
