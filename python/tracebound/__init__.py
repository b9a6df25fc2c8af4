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

# The session's own columns, the library's (docs/tables.md), the same as
# the Parquet files': reserved names, so a field keeps its own name (one
# that carries a reserved name, which no kernel event has, is "field:NAME").
# (__buffer, __cpu, __subbuf, __offset) is each event's key in its capture.
SESSION_COLUMNS = ("__ts", "__cpu", "__pid", "__comm", "__buffer", "__subbuf", "__offset")


def _np():
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is optional
        raise ImportError("tracebound: columns() and df() need numpy") from e
    return numpy


def _masked(np, data, nulls, rows):
    """data as is without nulls, else masked where null (one byte per row)."""
    if nulls is None:
        return data
    mask = np.frombuffer(nulls, dtype=np.bool_, count=rows)
    if data.ndim == 2:
        mask = np.repeat(mask[:, None], data.shape[1], axis=1)
    return np.ma.MaskedArray(data, mask=mask)


def _wrap(spec, rows, np):
    """One column from the C side's typed buffer (no copy for numbers)."""
    name, kind, dtype = spec[0], spec[1], spec[2].decode()
    if kind == "num":
        return name, _masked(np, np.frombuffer(spec[3], dtype=dtype, count=rows), spec[4], rows)
    if kind == "str":
        codes = np.frombuffer(spec[3], dtype=dtype, count=rows)
        uniq = np.empty(len(spec[4]), dtype=object)
        uniq[:] = spec[4]
        return name, uniq[codes] if rows else np.empty(0, dtype=object)
    if kind == "fixed":
        count = spec[4]
        data = np.frombuffer(spec[3], dtype=dtype, count=rows * count).reshape(rows, count)
        return name, _masked(np, data, spec[5], rows)
    out = np.empty(rows, dtype=object)  # "list": variable-length arrays
    out[:] = spec[3] if rows else []
    return name, out


class Columns(dict):
    """What columns() gives: {column: array} for one type, {type: Columns}
    for several; a dict that also carries the damage the walk got past
    (nothing unless the capture was opened with skip_damaged=True):
    damage, the damage outside the event data (Trace.damage()), and
    damaged_pages, the pages skipped."""
    damage = []
    damaged_pages = 0


def _tables(raw, np, damage):
    tables, (raw, damaged_pages) = Columns(), raw
    for system, name, rows, cols in raw:
        key = name if name not in tables else "%s:%s" % (system, name)
        tables[key] = Columns(_wrap(c, rows, np) for c in cols)
    for c in [tables] + list(tables.values()):
        c.damage, c.damaged_pages = damage, damaged_pages
    return tables


class Trace(_tracebound.Trace):
    """An opened capture (tracebound.open)."""

    def columns(self, name=None, cpus=None, start=None, end=None):
        """Typed columns of events, built in one pass in C.

        name a single event name ("sched_switch" or "sched:sched_switch"):
        a dict of numpy arrays, the session's columns first (SESSION_COLUMNS:
        "__ts", "__cpu", "__pid", "__comm", "__buffer", "__subbuf",
        "__offset"), then every field of the format (common fields too).
        Integers keep their width and signedness (u64 stays uint64),
        strings are object arrays of str, fixed arrays 2-D,
        variable-length arrays object arrays of lists.  Unknown is null:
        None in object arrays; a number column with a null is a
        numpy.ma.MaskedArray (masked where null).  The same names, types
        and nulls as the Parquet tables (docs/tables.md).  name None or a
        list: {event name: such a dict} for every type selected (None:
        every type that has events).
        """
        np = _np()
        tables = _tables(self._columns(name, cpus, start, end), np, self.damage())
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
    """Lists for 2-D columns; a masked number column becomes pandas'
    nullable dtype of the same width and sign (UInt64, Int32...: pd.NA).
    attrs["damage"] / attrs["damaged_pages"]: what the walk got past."""
    import numpy as np
    flat = {}
    for k, v in cols.items():
        if isinstance(v, np.ma.MaskedArray):
            mask = np.ma.getmaskarray(v)
            if v.ndim == 2:
                flat[k] = [None if m[0] else row for row, m in zip(v.data.tolist(), mask)]
            else:
                flat[k] = pd.arrays.IntegerArray(np.ascontiguousarray(v.data), mask.copy())
        elif getattr(v, "ndim", 1) == 2:
            flat[k] = list(v.tolist())
        else:
            flat[k] = v
    frame = pd.DataFrame(flat, copy=False)
    frame.attrs["damage"] = list(cols.damage)
    frame.attrs["damaged_pages"] = cols.damaged_pages
    return frame


def open(path, events=None, skip_damaged=False, max_memory=0):
    """Open a capture: a trace.dat, or a directory of cpuN.raw dumps.

    events: for a raw dump directory, the events directory laid out like
    /sys/kernel/tracing/events (default: PATH/events).  A damaged capture
    raises Error: from open() when the damage is in what open reads (its
    tables, formats, options; e.damage lists all of it), from the
    iteration or columns() when a damaged page is met.  skip_damaged=True
    salvages instead: open() goes past the damage (Trace.damage() lists
    it), damaged pages are skipped and counted, and what columns() / df()
    give carries both (.damage / .damaged_pages, DataFrame.attrs).
    max_memory: the decoding memory each walk of the capture may take, in
    bytes (0: the CLI's default, max(64 MiB, 16 x the input's size)); a
    capture that needs more raises Error with status "budget" ("sound as
    far as read, but needs N bytes, over the budget of M").
    """
    return Trace(path, events, skip_damaged, max_memory)
