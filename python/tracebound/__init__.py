"""tracebound: decode trace-cmd trace.dat captures, raw ftrace dumps and
FreeBSD pmclog streams safely and fast, from Python.

    import tracebound
    with tracebound.open("trace.dat") as t:
        print(t.cpus, t.clock, t.uname)
        for ev in t.events(name="sched_switch", cpus=[0], start=t0, end=t1):
            print(ev.ts, ev.cpu, ev.comm, ev.pid, ev.name, ev.fields, ev.text())
        df = t.df("sched_switch")          # pandas DataFrame, built in C
        cols = t.columns("sched_switch")   # dict of numpy arrays

The decoding is the tracebound C library (no allocation, every length and
offset checked): a damaged capture raises tracebound.Error (status,
offset, what) and never crashes the interpreter.  The input is mapped,
not read; decoding runs with the GIL released.  numpy and pandas are used
only by columns() and df().
"""
from . import _tracebound
from ._tracebound import Error, Event, check, pmclog, strerror, library_version

__all__ = ["open", "Trace", "Event", "Error", "check", "pmclog", "strerror"]
__version__ = "0.1.0"

# The session's own columns: the event's fields keep their names, so these
# start with "__" (as LISA's DataFrames name them) and never collide.
SESSION_COLUMNS = ("__ts", "__cpu", "__pid", "__comm")


def _np():
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is optional
        raise ImportError("tracebound: columns() and df() need numpy") from e
    return numpy


def _wrap(spec, rows, np):
    """One column from the C side's typed buffer (no copy for numbers)."""
    name, kind, dtype = spec[0], spec[1], spec[2].decode()
    if kind == "num":
        return name, np.frombuffer(spec[3], dtype=dtype, count=rows)
    if kind == "str":
        codes = np.frombuffer(spec[3], dtype=dtype, count=rows)
        uniq = np.empty(len(spec[4]), dtype=object)
        uniq[:] = spec[4]
        return name, uniq[codes] if rows else np.empty(0, dtype=object)
    if kind == "fixed":
        count = spec[4]
        return name, np.frombuffer(spec[3], dtype=dtype, count=rows * count).reshape(rows, count)
    out = np.empty(rows, dtype=object)  # "list": variable-length arrays
    out[:] = spec[3] if rows else []
    return name, out


def _tables(raw, np):
    tables = {}
    for system, name, rows, cols in raw:
        key = name if name not in tables else "%s:%s" % (system, name)
        tables[key] = dict(_wrap(c, rows, np) for c in cols)
    return tables


class Trace(_tracebound.Trace):
    """An opened capture (tracebound.open)."""

    def columns(self, name=None, cpus=None, start=None, end=None):
        """Typed columns of events, built in one pass in C.

        name a single event name ("sched_switch" or "sched:sched_switch"):
        a dict of numpy arrays, "__ts", "__cpu", "__pid", "__comm" first,
        then every field of the format (common fields too).  Integers keep
        their width and signedness (u64 stays uint64), strings are object
        arrays of str, fixed arrays 2-D, variable-length arrays object
        arrays of lists.  name None or a list: {event name: such a dict}
        for every type selected (None: every type that has events).
        """
        np = _np()
        tables = _tables(self._columns(name, cpus, start, end), np)
        if isinstance(name, str):
            return next(iter(tables.values()))
        return tables

    def df(self, name, cpus=None, start=None, end=None):
        """A pandas DataFrame of one event type (see columns()); dfs() for several."""
        if not isinstance(name, str):
            raise TypeError("df(name): one event name (str); dfs() gives several")
        import pandas as pd
        return _frame(pd, self.columns(name, cpus, start, end))

    def dfs(self, name=None, cpus=None, start=None, end=None):
        """{event name: DataFrame} for every type selected, in ONE walk."""
        import pandas as pd
        if isinstance(name, str):
            name = [name]
        return {k: _frame(pd, v) for k, v in self.columns(name, cpus, start, end).items()}


def _frame(pd, cols):
    flat = {}
    for k, v in cols.items():
        flat[k] = list(v.tolist()) if getattr(v, "ndim", 1) == 2 else v
    return pd.DataFrame(flat, copy=False)


def open(path, events=None, skip_damaged=False, max_memory=0):
    """Open a capture: a trace.dat, or a directory of cpuN.raw dumps.

    events: for a raw dump directory, the events directory laid out like
    /sys/kernel/tracing/events (default: PATH/events).  skip_damaged: a
    damaged page is skipped (counted) instead of raising Error.
    max_memory: the decoding memory each walk of the capture may take, in
    bytes (0: the CLI's default, max(64 MiB, 16 x the input's size)); a
    capture that needs more raises Error with status "budget" ("sound as
    far as read, but needs N bytes, over the budget of M").
    """
    return Trace(path, events, skip_damaged, max_memory)
