"""pmclog(): the records `tracebound pmclog --json` prints."""
import glob
import json
import os

import pytest

import tracebound
from conftest import DATA, ROOT, run_json

LOGS = sorted(glob.glob(os.path.join(DATA, "pmclog", "*.pmclog")))


@pytest.mark.parametrize("path", LOGS, ids=os.path.basename)
def test_records_equal_cli_json(cli, path):
    # a legacy log does not say its address width (as tests/test_pmclog.c)
    a4 = os.path.basename(path) in ("legacy-i386.pmclog", "legacy-be32.pmclog")
    ref = run_json(cli, "pmclog", "--json", *(["--addr-size", "4"] if a4 else []), path)
    try:
        got = tracebound.pmclog(path, addr_size=4 if a4 else 0)
    except tracebound.Error as e:
        got = e.records
    assert got == ref and len(ref) > 0
    golden = path[:-len(".pmclog")] + ".json"
    if os.path.exists(golden):
        with open(golden) as f:
            assert got == [json.loads(l) for l in f if l.strip()]


def test_corpus_pmclog_never_crashes():
    n = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "corpus", "pmclog", "*"))):
        try:
            tracebound.pmclog(path)
        except tracebound.Error as e:
            assert isinstance(e.records, list) and e.what
            n += 1
    assert n > 0


def test_truncated_log_keeps_the_records_before(tmp_path):
    data = open(LOGS[0], "rb").read()
    full = tracebound.pmclog(LOGS[0])
    p = tmp_path / "cut.pmclog"
    p.write_bytes(data[:-3])
    with pytest.raises(tracebound.Error) as ei:
        tracebound.pmclog(str(p))
    assert ei.value.status == "truncated"
    assert ei.value.records == full[: len(ei.value.records)] and ei.value.records
