"""One selection, two front doors: `report --events/--cpu/--from/--to` and
Python's name/cpus/start/end go through the library's tb_selection
(include/tracebound/selection.h), so they pick the same events."""
import os
import subprocess

import pytest

import tracebound
from conftest import DATA, run_json

DAT = os.path.join(DATA, "sched4k.v7zstd.dat")
PERF = os.path.join(DATA, "perf", "sched.data")

# (events list, CPUs): each rule of docs/selection.md
CASES = [
    ("sched_switch", None),                  # an event name
    ("sched", None),                         # a system name
    ("sched:sched_waking,sched:*wakeup*", None),  # system:event, globs in both parts
    ("*:sched_switch,sched_wak*", "1"),      # *:event, a glob
    ("sched_switch", "0"),
]


def key(ts, cpu, system, name):
    return (ts, cpu, "%s:%s" % (system, name))


def cli_keys(cli, path, events, cpus, *more):
    args = ["report", "--json", "--events", events]
    if cpus is not None:
        args += ["--cpu", cpus]
    objs = run_json(cli, *(args + list(more) + [path]))
    return [key(o["ts"], o["cpu"], o["system"], o["name"]) for o in objs if "ts" in o]


def py_keys(path, events, cpus, **window):
    with tracebound.open(path) as t:
        sel = t.events(name=events.split(","),
                       cpus=None if cpus is None else [int(c) for c in cpus.split(",")],
                       **window)
        return [key(e.ts, e.cpu, e.system, e.name) for e in sel]


@pytest.mark.parametrize("path", [DAT, PERF], ids=["trace.dat", "perf.data"])
@pytest.mark.parametrize("events,cpus", CASES)
def test_cli_and_python_select_the_same(cli, path, events, cpus):
    ref = cli_keys(cli, path, events, cpus)
    got = py_keys(path, events, cpus)
    assert len(got) == len(ref) > 0
    assert got == ref


@pytest.mark.parametrize("path", [DAT, PERF], ids=["trace.dat", "perf.data"])
def test_window_is_the_same(cli, path):
    every = cli_keys(cli, path, "sched", None)
    lo, hi = every[len(every) // 4][0], every[len(every) // 2][0]
    # --from/--to include both ends; Python's end is excluded
    ref = cli_keys(cli, path, "sched", None, "--from", str(lo), "--to", str(hi))
    got = py_keys(path, "sched", None, start=lo, end=hi + 1)
    assert len(got) == len(ref) >= len(every) // 4
    assert got == ref


def test_counts_on_the_bundled_capture(cli):
    # sched_switch on the bundled capture: the same count through both doors
    n = len(py_keys(DAT, "sched_switch", None))
    assert n == len(cli_keys(cli, DAT, "sched:sched_switch", None))
    assert n == len(py_keys(DAT, "*:sched_switch", None))


def test_unknown_names_are_value_errors(cli):
    # the perf.data sample has no irq events: both doors refuse the item
    p = subprocess.run([cli, "report", "--events", "sched,irq:*", PERF],
                                     capture_output=True, check=False)
    assert p.returncode == 2 and b"no event matches 'irq:*'" in p.stderr
    with tracebound.open(PERF) as t:
        with pytest.raises(ValueError, match="no event format named 'irq:\\*'"):
            list(t.events(name=["sched", "irq:*"]))
    with tracebound.open(DAT) as t:
        with pytest.raises(ValueError, match="no event format named 'nosuch'"):
            list(t.events(name=["sched_switch", "nosuch"]))
        with pytest.raises(ValueError, match="no event format named"):
            list(t.events(name="a,b"))
        assert list(t.events(name=[])) == []
