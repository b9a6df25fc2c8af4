"""Iteration: every event's values equal what the CLI prints for it."""
import collections
import os

import pytest

import tracebound
from conftest import ROOT, dat_files, fresh_files, run_json, run_text


def strip_common(fields):
    return {k: v for k, v in fields.items() if not k.startswith("common_")}


def same_event(py, ref):
    """py (an Event) carries every value of ref (a --json object)."""
    assert py.cpu == ref["cpu"]
    assert py.ts == ref["ts"]
    if "id" in ref and ref["id"] is not None:
        assert py.id == ref["id"]
    if "missed" in ref:
        assert py.missed == ref["missed"]
    if "pid" in ref:
        assert py.pid == ref["pid"]
    if "comm" in ref:
        assert py.comm == ref["comm"]
    if "name" in ref:
        assert py.name == ref["name"]
    if "system" in ref:
        assert py.system == ref["system"]
    if "fields" in ref:
        # older CLIs list the common fields too, newer ones only the event's
        fields = py.fields
        for k, v in ref["fields"].items():
            assert fields[k] == v, (k, py)
        assert strip_common(fields) == strip_common(ref["fields"])


@pytest.mark.parametrize("path", dat_files() + fresh_files(), ids=os.path.basename)
def test_dat_events_equal_report_json(cli, path):
    ref = [o for o in run_json(cli, "report", "--json", path) if "ts" in o]
    with tracebound.open(path) as t:
        got = list(t)
    assert len(got) == len(ref) > (60000 if path in dat_files() else 0)
    for py, r in zip(got, ref):
        same_event(py, r)


@pytest.mark.parametrize("path", dat_files() + fresh_files(), ids=os.path.basename)
def test_dat_text_lines_equal_report(cli, path):
    lines = run_text(cli, "report", path).splitlines(keepends=True)
    assert lines[0].startswith("cpus=")
    with tracebound.open(path) as t:
        assert lines[0] == "cpus=%d\n" % t.cpus
        text = [e.text("line") for e in t]
    # each without the newline the report ends it with
    assert not any(x.endswith("\n") for x in text)
    assert "".join(x + "\n" for x in text) == "".join(lines[1:])


@pytest.mark.parametrize("path", dat_files() + fresh_files(), ids=os.path.basename)
def test_raw_lines_equal_report_raw(cli, path):
    with tracebound.open(path) as t:
        text = [e.text("raw-line") for e in t]
    lines = run_text(cli, "report", "--raw", path).splitlines(keepends=True)
    assert not any(x.endswith("\n") for x in text)
    assert "".join(x + "\n" for x in text) == "".join(lines[1:])


def test_line_has_no_trailing_newline():
    with tracebound.open(os.path.join(ROOT, "tests", "data", "sched4k.v7zstd.dat")) as t:
        ev = next(iter(t))
        assert ev.text("line") == (" memfd:sealed-91-1573  [001]   192.833676: "
                                   "sys_enter_newfstat:   sys_newfstat(fd: 5, "
                                   "statbuf: 0x7fff89a3be00)")
        assert ev.text("raw-line") == (" memfd:sealed-91-1573  [001]   192.833676: "
                                       "sys_enter_newfstat:    __syscall_nr=5 "
                                       "fd=0x00000005 statbuf=0x7fff89a3be00")


def test_iteration_goes_on_after_a_damaged_page():
    """Error for one page, then the walk resumes after it and ends."""
    import glob
    from conftest import ROOT
    resumed = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "corpus", "tracedat", "*"))):
        try:
            t = tracebound.open(path)
        except tracebound.Error:
            continue
        it, errors, after = iter(t), 0, 0
        while errors < 100000:
            try:
                next(it)
                after += errors > 0
            except StopIteration:
                break
            except tracebound.Error:
                errors += 1
        else:
            pytest.fail("%s: the walk did not end" % path)
        resumed += errors > 0 and after > 0
    assert resumed > 0


def test_fields_are_typed(path=dat_files()[0]):
    with tracebound.open(path) as t:
        sw = next(t.events(name="sched_switch"))
        f = sw.fields
        assert isinstance(f["prev_comm"], str) and isinstance(f["next_pid"], int)
        assert set(f) >= {"prev_comm", "prev_pid", "prev_prio", "prev_state",
                          "next_comm", "next_pid", "next_prio"}
        assert sw["next_comm"] == f["next_comm"]
        assert sw.text().startswith("prev_comm=%s prev_pid=%d" % (f["prev_comm"], f["prev_pid"]))
        # a fixed array of longs comes back as a list of ints
        ent = next(t.events(name="sys_enter_write"))
        assert isinstance(ent.fields["count"], int)


@pytest.mark.parametrize("which", ["sample", "fresh"])
def test_raw_dump_equals_raw_json(cli, request, raw_dir, events_dir, which):
    if which == "fresh":
        raw_dir = request.getfixturevalue("fresh_raw")
        events_dir = os.path.join(raw_dir, "events")
    cpus = sorted(f for f in os.listdir(raw_dir) if f.endswith(".raw"))
    ref = run_json(cli, "raw", "--json", "--events", events_dir,
                   *[os.path.join(raw_dir, c) for c in cpus])
    ref = [o for o in ref if "ts" in o]
    with tracebound.open(raw_dir, events=events_dir) as t:
        assert t.cpus >= 2
        got = list(t)
    # the CLI prints one file after the other, the session merges by time:
    # per CPU both keep the order of the dump
    by_cpu_ref, by_cpu_got = collections.defaultdict(list), collections.defaultdict(list)
    for o in ref:
        by_cpu_ref[o["cpu"]].append(o)
    for e in got:
        by_cpu_got[e.cpu].append(e)
    assert sorted(by_cpu_ref) == sorted(by_cpu_got)
    assert len(ref) > (2000 if which == "sample" else 0)
    for cpu in by_cpu_ref:
        assert len(by_cpu_got[cpu]) == len(by_cpu_ref[cpu])
        for py, r in zip(by_cpu_got[cpu], by_cpu_ref[cpu]):
            same_event(py, r)
    assert all(a.ts <= b.ts for a, b in zip(got, got[1:]))


def test_raw_dump_needs_formats(raw_dir):
    with pytest.raises(FileNotFoundError, match="events"):
        tracebound.open(raw_dir)


def test_filters_run_in_c_and_equal_python_filtering(cli):
    path = dat_files()[0]
    with tracebound.open(path) as t:
        every = [(e.ts, e.cpu, e.name) for e in t]
        lo, hi = every[len(every) // 4][0], every[3 * len(every) // 4][0]
        want = [x for x in every if x[2] in ("sched_switch", "sched_waking") and x[1] == 1
                and lo <= x[0] < hi]
        got = [(e.ts, e.cpu, e.name) for e in
               t.events(name=["sched_switch", "sched:sched_waking"], cpus=[1], start=lo, end=hi)]
        assert got == want and len(want) > 20
        assert [e.ts for e in t.events(cpus=0)] == [x[0] for x in every if x[1] == 0]
        assert list(t.events(name=[])) == []
        with pytest.raises(ValueError, match="no event format"):
            t.events(name="no_such_event")
    # the same selection through the CLI
    ref = run_json(cli, "report", "--json", "--cpu", "1", "--events",
                   "sched_switch,sched:sched_waking", path)
    ref = [(o["ts"], o["cpu"], o["name"]) for o in ref if "ts" in o]
    assert [x for x in ref if lo <= x[0] < hi] == want


def test_a_walks_filter_ends_with_it():
    """A walk's formats, CPUs and times go down to the session (events it
    drops are never described); the next walk sees every event again."""
    path = dat_files()[0]
    with tracebound.open(path) as t:
        n = sum(1 for _ in t)
        every = [e.ts for e in t]
        lo, hi = every[n // 4], every[3 * n // 4]
        it = t.events(name="sched_switch", cpus=[1], start=lo, end=hi)
        first = next(it)
        assert (first.name, first.cpu) == ("sched_switch", 1) and lo <= first.ts < hi
        assert sum(1 for _ in t) == n      # a walk of its own meanwhile
        del it                             # the filtered walk ends unfinished
        assert t.stats()["events"] == n    # a walk without a filter of its own
        assert sum(1 for _ in t) == n      # the main session, its filter gone
        nsw = sum(1 for e in t if e.name == "sched_switch")
        assert len(t.columns("sched_switch")["__ts"]) == nsw > 0
        assert sum(1 for _ in t) == n


def test_trace_metadata():
    path = dat_files()[0]
    with tracebound.open(path) as t:
        assert t.cpus == 2
        assert t.clock == "local"
        assert t.uname.startswith("Linux ")
        assert t.drops == 2746          # as `tracebound stats` counts them
        types = t.event_types()
        assert ("sched", "sched_switch", 372) in types
        st = t.stats()
        assert st["by_type"]["sched:sched_switch"] == 968
        assert st["events"] == sum(st["by_type"].values()) + st["unknown_events"]
    with pytest.raises(ValueError, match="closed"):
        t.cpus


def test_two_walks_at_once():
    path = dat_files()[0]
    with tracebound.open(path) as t:
        a, b = iter(t), iter(t)
        first = [next(a) for _ in range(10)]
        second = [next(b) for _ in range(10)]
        assert [e.ts for e in first] == [e.ts for e in second]
        assert sum(1 for _ in a) == sum(1 for _ in b)
        # events outlive their walk and their trace
        ev = first[3]
    assert ev.text() and ev.fields


def test_threads_walk_at_once():
    """Walks release the GIL; each has its own session: same results."""
    import threading
    path = dat_files()[0]
    with tracebound.open(path) as t:
        want = [(e.ts, e.cpu, e.name) for e in t]
        results = [None] * 4

        def work(i):
            results[i] = [(e.ts, e.cpu, e.name) for e in t]
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert all(r == want for r in results)


def test_check_raw_dump(raw_dir, events_dir):
    assert tracebound.check(raw_dir, events=events_dir) == []


@pytest.mark.parametrize("path", dat_files()[:1] + fresh_files()[:3], ids=os.path.basename)
def test_fields_equal_the_library_json(path):
    """The extension's typed fields and the library's own JSON writer agree."""
    import json
    n = 0
    with tracebound.open(path) as t:
        for e in t:
            if not e.name:
                continue
            j = json.loads(e.text("json"))
            assert (j["cpu"], j["ts"], j["pid"], j["comm"], j["name"]) == \
                (e.cpu, e.ts, e.pid, e.comm, e.name)
            assert strip_common(j["fields"]) == strip_common(e.fields), e
            assert j.get("text", e.text()) == e.text()
            n += 1
    assert n > (60000 if path in dat_files() else 100)
