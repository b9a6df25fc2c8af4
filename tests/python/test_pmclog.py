"""pmclog(): the records `tracebound pmclog --json` prints."""
import glob
import json
import os

import pytest

import tracebound
from conftest import DATA, ROOT, run_json

LOGS = sorted(glob.glob(os.path.join(DATA, "pmclog", "*.pmclog")))


def _python_and_cli(cli, path):
    """pmclog()'s records (those before a fault too) and `pmclog --json`'s."""
    # a legacy log does not say its address width (as tests/test_pmclog.c)
    a4 = os.path.basename(path) in ("legacy-i386.pmclog", "legacy-be32.pmclog")
    ref = run_json(cli, "pmclog", "--json", *(["--addr-size", "4"] if a4 else []), path)
    try:
        got = tracebound.pmclog(path, addr_size=4 if a4 else 0)
    except tracebound.Error as e:
        got = e.records
    return got, ref


@pytest.mark.parametrize("path", LOGS, ids=os.path.basename)
def test_records_equal_cli_json(cli, path):
    got, ref = _python_and_cli(cli, path)
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


# Every record kind of the library's table (tb_pmclog_type order).
KINDS = ["unknown", "closelog", "dropnotify", "initialize", "pcsample", "pmcallocate",
         "pmcattach", "pmcdetach", "proccsw", "procexec", "procexit", "procfork", "sysexit",
         "userdata", "map_in", "map_out", "callchain", "pmcallocatedyn", "thr_create",
         "thr_exit", "proc_create", "pmcgroupinheritmiss"]


def _as_json_reads(v):
    """A byte that is not UTF-8 is U+DCXX in Python (surrogateescape) and
    \\u00XX in tb_json_str's JSON: the same byte, said two ways."""
    return "".join(chr(ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff else c for c in v)


def _same(got, ref, where):
    """Key for key (in order), value for value, type for type."""
    if isinstance(ref, dict):
        assert isinstance(got, dict) and list(got) == list(ref), where
        for k in ref:
            _same(got[k], ref[k], where + "." + k)
    elif isinstance(ref, list):
        assert isinstance(got, list) and len(got) == len(ref), where
        for i, (g, r) in enumerate(zip(got, ref)):
            _same(g, r, "%s[%d]" % (where, i))
    elif isinstance(ref, str):
        assert isinstance(got, str) and _as_json_reads(got) == ref, where
    else:
        assert type(got) is type(ref) and got == ref, where


def test_every_record_kind_agrees_with_cli_json(cli):
    """Python's dicts and `pmclog --json` come from the one record table:
    on the golden logs and every corpus input (the hand-built records of
    tests/test_pmclog.c and the fuzzer's finds), every record kind and every
    conditional field agree."""
    inputs = LOGS + sorted(glob.glob(os.path.join(ROOT, "corpus", "pmclog", "*")))
    kinds, keys = set(), set()
    for path in inputs:
        got, ref = _python_and_cli(cli, path)
        assert len(got) == len(ref), path
        for i, (g, r) in enumerate(zip(got, ref)):
            _same(g, r, "%s#%d" % (os.path.basename(path), i))
            kinds.add(r["type"])
            keys.update((r["type"], k) for k in r["fields"])
    assert kinds == set(KINDS)
    # the fields that depend on the layout were met too
    assert {("procexec", "baseaddr"), ("procexec", "entryaddr"), ("callchain", "parts"),
            ("callchain", "tid"), ("pmcallocatedyn", "rate"), ("initialize", "ts")} <= keys


def test_utf8_strings_agree(cli, tmp_path):
    """The intended difference of tb_json_str: valid UTF-8 in a path reads the
    same in Python and in `pmclog --json` (before, the CLI wrote each byte
    >= 0x7f as \\u00XX: "é" became "Ã©")."""
    golden = os.path.join(DATA, "pmclog", "amd64.pmclog")
    data = open(golden, "rb").read()
    ref = run_json(cli, "pmclog", "--json", golden)
    rec = next(r for r in ref if r["type"] == "map_in" and len(r["fields"]["pathname"]) >= 2)
    off = rec["offset"] + 32  # the modern amd64 MAP_IN path
    name = rec["fields"]["pathname"].encode()
    assert data[off:off + len(name)] == name
    p = tmp_path / "utf8.pmclog"
    p.write_bytes(data[:off] + "é\x7f".encode() + data[off + 3:])
    got = [r for r in tracebound.pmclog(str(p)) if r["offset"] == rec["offset"]][0]
    want = [r for r in run_json(cli, "pmclog", "--json", str(p)) if r["offset"] == rec["offset"]][0]
    assert got == want
    assert got["fields"]["pathname"].startswith("é\x7f")
