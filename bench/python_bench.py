#!/usr/bin/python3
"""How fast tracebound's Python module builds DataFrames, beside the CLI.

    make all python
    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [FILE.dat ...]

For each file: `tracebound report --raw FILE > /dev/null` (the C tool
printing every event with its fields), then every event type's DataFrame
in one walk (Trace.dfs()), one DataFrame per type (Trace.df() each), and
the columns alone (numpy, no pandas).  Goal: all DataFrames of a file in
no more than 3x the time report --raw takes.  Best of --repeat runs.

Files: the largest shared sample, and a capture with a million
sched_switch events: taken here when this machine allows it (root, a
writable tracefs, trace-cmd): a private tracefs instance records only
sched:sched_switch into 96 MiB per CPU while two processes hand a byte
back and forth over pipes (every hand-off is a context switch), then
`trace-cmd extract` writes build/bench/sched_switch-1m.dat (kept for the
next run).  Without tracefs that part is skipped, said so.
"""
import argparse
import glob
import os
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CLI = os.environ.get("TB_CLI") or os.path.join(ROOT, "build", "tracebound")
TRACEFS = "/sys/kernel/tracing"
CAPTURE = os.path.join(ROOT, "build", "bench", "sched_switch-1m.dat")


def cpu_seconds():
    """CPU time of this process and its finished children (user + system)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


def best(fn, repeat):
    """(wall, cpu) seconds, the best of `repeat` runs each.  On a shared
    machine the CPU time is the steadier figure."""
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = cpu_seconds(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu_seconds() - c0)
    return min(walls), min(cpus)


def report_raw(path):
    with open(os.devnull, "wb") as null:
        subprocess.run([CLI, "report", "--raw", path], stdout=null, check=True)


def ping_pong(rounds):
    """Two processes hand one byte back and forth: 2 switches a round."""
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            for _ in range(rounds):
                os.read(a_r, 1)
                os.write(b_w, b"x")
        finally:
            os._exit(0)
    for _ in range(rounds):
        os.write(a_w, b"x")
        os.read(b_r, 1)
    os.waitpid(pid, 0)
    for fd in (a_r, a_w, b_r, b_w):
        os.close(fd)


def entries(inst):
    n = 0
    for stats in glob.glob(os.path.join(inst, "per_cpu", "cpu*", "stats")):
        with open(stats) as f:
            for line in f:
                if line.startswith("entries:"):
                    n += int(line.split()[1])
    return n


def capture(want=1_000_000):
    """build/bench/sched_switch-1m.dat with at least `want` sched_switch events."""
    if os.path.exists(CAPTURE):
        return CAPTURE
    inst = os.path.join(TRACEFS, "instances", "tb-pybench-%d" % os.getpid())
    if os.getuid() != 0 or not shutil.which("trace-cmd") or \
            not os.access(os.path.join(TRACEFS, "instances"), os.W_OK):
        print("1M capture: skipped (needs root, a writable %s and trace-cmd)" % TRACEFS)
        return None
    os.makedirs(os.path.dirname(CAPTURE), exist_ok=True)
    os.mkdir(inst)
    try:
        def put(name, value):
            with open(os.path.join(inst, name), "w") as f:
                f.write(value)
        put("tracing_on", "0")
        put("buffer_size_kb", str(96 * 1024))
        put("events/sched/sched_switch/enable", "1")
        put("tracing_on", "1")
        while entries(inst) < want:
            ping_pong(50_000)
        put("tracing_on", "0")
        name = os.path.basename(inst)
        subprocess.run(["trace-cmd", "extract", "-B", name, "-o", CAPTURE],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    finally:
        if os.path.isdir(inst):
            try:
                with open(os.path.join(inst, "events/enable"), "w") as f:
                    f.write("0")
                os.rmdir(inst)
            except OSError:
                pass
    return CAPTURE


def bench(path, repeat, tracebound, per_type=True):
    size = os.path.getsize(path)
    with tracebound.open(path) as t:
        st = t.stats()
        n, types = st["events"], len(st["by_type"])
        sw = st["by_type"].get("sched:sched_switch", 0)
        print("\n%s: %.1f MB, %d events, %d event types, %d sched_switch" %
              (os.path.basename(path), size / 1e6, n, types, sw))
        r, rc = best(lambda: report_raw(path), repeat)
        print("  %-40s %7s %7s   %s" % ("", "wall s", "cpu s", "x report --raw (wall, cpu)"))
        print("  %-40s %7.3f %7.3f   (%.0f ns/event cpu)" % ("report --raw > /dev/null", r, rc,
                                                        rc / n * 1e9))
        rows = [("dfs(): every type's DataFrame, one walk", lambda: t.dfs())]
        rows.append(("columns(): every type, numpy only", lambda: t.columns()))
        if per_type:
            names = [k.split(":", 1)[1] for k in st["by_type"]]
            rows.append(("df(name) for each type, one walk each", lambda: [t.df(x) for x in names]))
        if sw:
            rows.append(("df('sched_switch')", lambda: t.df("sched_switch")))
            rows.append(("events(name='sched_switch') loop", lambda: sum(
                1 for _ in t.events(name="sched_switch"))))
        rows.append(("iterate every event (Event objects)", lambda: sum(1 for _ in t)))
        res = {}
        for label, fn in rows:
            w, c = best(fn, repeat)
            res[label] = (w, c)
            print("  %-40s %7.3f %7.3f   %5.2fx %5.2fx" % (label, w, c, w / r, c / rc))
        w, c = res[rows[0][0]]
        verdict = "met" if c <= 3 * rc else "NOT met"
        print("  goal, all DataFrames <= 3x report --raw: %s (%.2fx cpu, %.2fx wall)" %
              (verdict, c / rc, w / r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-capture", action="store_true")
    a = ap.parse_args()
    import tracebound
    files = a.files
    if not files:
        samples = [p for d in ("/work/shared/samples", os.path.join(ROOT, "tests", "data"))
                   for p in glob.glob(os.path.join(d, "*.dat"))]
        files = [max(samples, key=os.path.getsize)]
        if not a.no_capture:
            c = capture()
            if c:
                files.append(c)
    print("tracebound %s, Python %s, numpy/pandas: %s" % (
        tracebound.library_version, sys.version.split()[0], _versions()))
    for f in files:
        bench(f, a.repeat, tracebound, per_type=os.path.getsize(f) < 50e6)


def _versions():
    try:
        import numpy
        import pandas
        return "%s/%s" % (numpy.__version__, pandas.__version__)
    except ImportError:
        return "missing"


if __name__ == "__main__":
    main()
