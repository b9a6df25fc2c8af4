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


def fresh_files():
    """Fresh captures of this machine: what `make check` leaves in
    build/capture-dat (ci/capture-dat.sh: 4/8/64 KiB sub-buffers, several
    event sets up to every event, v6 and v7, zstd), or TB_FRESH_DAT_DIR."""
    d = os.environ.get("TB_FRESH_DAT_DIR") or os.path.join(ROOT, "build", "capture-dat")
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".dat")) \
        if os.path.isdir(d) else []


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


@pytest.fixture(scope="session")
def fresh_raw(tmp_path_factory):
    """A raw dump captured now (tests/capture-fresh.sh: cpuN.raw, header_page,
    subbuf_kb, events/), or TB_FRESH_DIR; skipped without root and tracefs."""
    d = os.environ.get("TB_FRESH_DIR")
    if d:
        return d
    if os.getuid() != 0 or not os.access("/sys/kernel/tracing/instances", os.W_OK):
        pytest.skip("no fresh raw capture: needs root and a writable tracefs")
    d = str(tmp_path_factory.mktemp("fresh"))
    p = subprocess.run(["sh", os.path.join(ROOT, "tests", "capture-fresh.sh"), d],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        pytest.skip("capture-fresh.sh failed: %s" % p.stderr.decode(errors="replace")[-200:])
    return d
