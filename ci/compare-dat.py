#!/usr/bin/env python3
"""Compare `tracebound report` and `trace-cmd report -N` of a trace.dat with
the kernel's own `trace` text of the same buffer (DAT=1 ci/capture-render.sh).

usage: ci/compare-dat.py CAPTURE_DIR TRACEBOUND_CLI

Lines are paired per CPU in order, checked by timestamp (the kernel prints
raw counter values, both reports microseconds of them).  The kernel's
hashed %p values and the /size of its %pS symbols count as equal to
anything, as in tests/test_render_data.c.  Syscall and ftrace print
events are printed by the kernel without their event name.
"""
import re, subprocess, sys
from collections import defaultdict

KLINE = re.compile(r'^.*?\[(\d{3})\] \S+ +(\d+): (.*)$')
RLINE = re.compile(r'^(?:\S+: )?.*?\[(\d{3})\] +(\d+)\.(\d{6}): (\S+?):\s+(.*)$')

def kernel_lines(path):
    per = defaultdict(list)
    for l in open(path, encoding='utf-8', errors='replace'):
        l = l.rstrip('\n')
        if l.startswith('#'):
            continue
        m = KLINE.match(l)
        if m:
            per[int(m.group(1))].append((int(m.group(2)), m.group(3)))
    return per

def report_lines(text):
    per = defaultdict(list)
    for l in text.splitlines():
        m = RLINE.match(l)
        if m:
            us = int(m.group(2)) * 1000000 + int(m.group(3))
            per[int(m.group(1))].append((us, m.group(4), m.group(5)))
    return per

HASH = re.compile(r'(?<![0-9A-Za-z])[0-9a-f]{16}(?![0-9A-Za-z])')
SIZE = re.compile(r'(\+0x[0-9a-f]+)/0x[0-9a-f]+')

def equal(kernel, ours):
    k = SIZE.sub(r'\1', kernel)
    pat = ''
    pos = 0
    for m in HASH.finditer(k):
        pat += re.escape(k[pos:m.start()]) + r'(?:0x)?[0-9a-fA-Fx()nil]+'
        pos = m.end()
    pat += re.escape(k[pos:])
    return re.fullmatch(pat, ours) is not None

def main():
    cap, cli = sys.argv[1], sys.argv[2]
    dat = cap + '/trace.dat'
    k = kernel_lines(cap + '/trace')
    tb = report_lines(subprocess.run([cli, 'report', dat], capture_output=True, text=True, errors='replace').stdout)
    tc = report_lines(subprocess.run(['trace-cmd', 'report', '-N', '-i', dat], capture_output=True, text=True, errors='replace').stdout)
    n = tb_eq = tc_eq = both = 0
    diff = defaultdict(lambda: [0, 0, 0, None])
    for cpu in k:
        kl, tl, cl = k[cpu], tb.get(cpu, []), tc.get(cpu, [])
        # the report lines are a suffix of the kernel's (the trace.dat may
        # start later); align on the end
        m = min(len(kl), len(tl), len(cl))
        for (kts, ktext), (tus, name, ttext), (cus, _, ctext) in zip(kl[-m:], tl[-m:], cl[-m:]):
            if (kts + 500) // 1000 != tus or tus != cus:
                continue
            payload = ktext
            if payload.startswith(name + ': '):
                payload = payload[len(name) + 2:]
            n += 1
            a, b = equal(payload, ttext), equal(payload, ctext)
            tb_eq += a
            tc_eq += b
            both += a and b
            d = diff[name]
            d[0] += 1
            d[1] += not a
            d[2] += not b
            if not a and d[3] is None:
                d[3] = (payload, ttext)
    print('lines compared: %d' % n)
    print('tracebound report equal to the kernel: %d (%.2f%%)' % (tb_eq, 100.0 * tb_eq / max(n, 1)))
    print('trace-cmd report -N equal to the kernel: %d (%.2f%%)' % (tc_eq, 100.0 * tc_eq / max(n, 1)))
    print('where trace-cmd agrees, tracebound agrees: %d of %d (%.3f%%)' % (both, tc_eq, 100.0 * both / max(tc_eq, 1)))
    for name, (cnt, a, b, ex) in sorted(diff.items()):
        if a:
            print('  %-32s n=%-6d tb_diff=%-6d tc_diff=%d' % (name, cnt, a, b))
            print('      kernel: %.160s\n      tb:     %.160s' % ex)

main()
