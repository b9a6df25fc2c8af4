"""Shared fixtures: the CLI the values are compared with, the samples.

Run from the top of the tree after `make all python`:

    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python

TB_CLI names the tracebound binary (default build/tracebound); TB_SAMPLES
the directory of real captures (default /work/shared/samples, else
../shared/samples beside the clone); tests/data is always used.
"""
import json
import os
import subprocess
import tarfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")


def _samples_dir():
    for d in (os.environ.get("TB_SAMPLES"), "/work/shared/samples",
              os.path.join(ROOT, "..", "shared", "samples")):
        if d and os.path.isdir(d):
            return os.path.abspath(d)
    return None


SAMPLES = _samples_dir()


def dat_files():
    """Every real trace.dat: the bundled one and the shared samples."""
    files = [os.path.join(DATA, "sched4k.v7zstd.dat")]
    if SAMPLES:
        files += sorted(os.path.join(SAMPLES, f) for f in os.listdir(SAMPLES)
                        if f.endswith(".dat"))
    return files


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("TB_CLI") or os.path.join(ROOT, "build", "tracebound")
    if not os.access(path, os.X_OK):
        pytest.fail("no tracebound CLI at %s: run make first" % path)
    return path


def run_json(cli, *args):
    """The objects of a `tracebound ... --json` run (exit status 0 or 1)."""
    p = subprocess.run([cli] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       check=False)
    assert p.returncode in (0, 1), p.stderr.decode(errors="replace")
    return [json.loads(line) for line in p.stdout.decode().splitlines() if line]


def run_text(cli, *args):
    p = subprocess.run([cli] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       check=False)
    assert p.returncode in (0, 1), p.stderr.decode(errors="replace")
    return p.stdout.decode("utf-8", errors="surrogateescape")


@pytest.fixture(scope="session")
def events_dir(tmp_path_factory):
    """tests/data/formats-6.18.tar.gz unpacked: events/<system>/<event>/format."""
    d = tmp_path_factory.mktemp("formats")
    with tarfile.open(os.path.join(DATA, "formats-6.18.tar.gz")) as tf:
        tf.extractall(d)
    return str(d / "events")


@pytest.fixture(scope="session")
def raw_dir():
    return os.path.join(DATA, "raw-sched4k")
