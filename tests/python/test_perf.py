"""perf.data through tracebound.open: every event equals the CLI's --json."""
import os

import pytest

import tracebound
from conftest import DATA, run_json
from test_events import same_event

PERF = os.path.join(DATA, "perf")
FILES = ["sched.data", "pipe.data", "schedg.data", "lost.data", "small.data"]


def events_equal_json(cli, path):
    """tracebound.open(path)'s events against report --json's."""
    ref = [o for o in run_json(cli, "report", "--json", path) if "ts" in o]
    with tracebound.open(path) as t:
        got = list(t)
    assert len(got) == len(ref) > 0
    for py, r in zip(got, ref):
        same_event(py, r)
    return got, ref


@pytest.mark.parametrize("name", FILES)
def test_perf_events_equal_report_json(cli, name):
    got, ref = events_equal_json(cli, os.path.join(PERF, name))
    # perf's task names: the sample's tid and the comm perf shows
    assert got[0].pid == ref[0]["tid"]


def test_perf_sched_values():
    with tracebound.open(os.path.join(PERF, "sched.data")) as t:
        ev = next(iter(t))
        # perf script: perf 7662 [000] 292.491958: sched:sched_stat_runtime:
        #   comm=perf pid=7662 runtime=274469 [ns]
        assert (ev.ts, ev.cpu, ev.pid, ev.comm) == (292491958920, 0, 7662, "perf")
        assert ev.name == "sched_stat_runtime" and ev.system == "sched"
        assert ev.fields["runtime"] == 274469


def test_perf_compressed_equals_cli(cli):
    # perf record -z: one zstd stream across the COMPRESSED records, read
    # through host/codec.c as the CLI reads it (issue 40)
    path = os.path.join(PERF, "schedz.data")
    ref = [o for o in run_json(cli, "report", "--json", path) if "ts" in o]
    with tracebound.open(path) as t:
        got = list(t)
    assert len(got) == len(ref) == 122
    for py, r in zip(got, ref):
        same_event(py, r)
    # perf script: perf 8076 [000] 299.417131: sched:sched_switch: prev_comm=perf
    #   prev_pid=8076 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18
    ev = got[0]
    assert (ev.ts // 1000, ev.cpu, ev.pid, ev.comm) == (299417131, 0, 8076, "perf")
    assert ev.name == "sched_switch"
    assert (ev.fields["prev_pid"], ev.fields["next_comm"], ev.fields["next_pid"]) == \
        (8076, "migration/0", 18)
    assert (got[-1].cpu, got[-1].fields["next_pid"]) == (1, 8076)


def test_perf_zstd_capture_equals_report_json(cli):
    # every event of the -z capture as report --json has it
    events_equal_json(cli, os.path.join(PERF, "schedz.data"))
