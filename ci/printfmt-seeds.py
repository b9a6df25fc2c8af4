#!/usr/bin/env python3
"""Build fuzz seeds for fuzz/printfmt_fuzzer.c from real event format files.

usage: ci/printfmt-seeds.py FORMATS_DIR OUT_DIR EVENT...   (EVENT = system/name)

Each seed holds an options byte, an output capacity byte, the event's
format text, a NUL, and a plausible record:
zeros with common_type set, a short string behind every dynamic field and
a little-endian counter in every scalar, so most conversions do something.
"""
import os, re, struct, sys

FIELD = re.compile(r'\tfield:(.*?);\toffset:(\d+);\tsize:(\d+);(?:\tsigned:(\d+);)?')

def parse(path):
    name, ident, fields, fmt, common = None, 0, [], None, True
    text = open(path, encoding='latin-1').read()
    head, _, pf = text.partition('\nprint fmt: ')
    fmt = pf[:-1] if pf.endswith('\n') else pf
    for line in head.split('\n'):
        if line.startswith('name: '):
            name = line[6:]
        elif line.startswith('ID: '):
            ident = int(line[4:])
        elif line == '' and fields:
            common = False
        m = FIELD.match(line)
        if m:
            decl, off, size, sg = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4) or 0)
            arr = '[' in decl and not decl.startswith(('__data_loc', '__rel_loc'))
            fname = re.sub(r'\[.*$', '', decl).split()[-1].lstrip('*') if arr else decl.split()[-1]
            if decl.startswith('__data_loc'):
                kind = 4 if size == 2 else 2
            elif decl.startswith('__rel_loc'):
                kind = 3
            elif arr:
                kind = 5 if size == 0 else 1
            else:
                kind = 0
            elem = 1
            for pat, e in (('long', 8), ('64', 8), ('32', 4), ('int', 4), ('16', 2), ('short', 2)):
                if pat in decl:
                    elem = e
                    break
            if kind == 0 or (kind == 1 and elem > size):
                elem = size if kind == 0 else 1
            flags = sg | (2 if re.search(r'char|u8|s8', decl) else 0) | (4 if 'long' in decl else 0) | (8 if common else 0)
            fields.append((kind, flags, off, size, elem, fname))
    return name, ident, fields, fmt

def seed(path):
    name, ident, fields, fmt = parse(path)
    end = max([f[2] + max(f[3], 4) for f in fields] + [8])
    rec = bytearray(end)
    struct.pack_into('<H', rec, 0, ident & 0xffff)
    tail = bytearray()
    for i, (kind, flags, off, size, elem, fname) in enumerate(fields):
        if kind in (2, 3):
            s = b'str%d\0' % i
            where = end + len(tail)
            loc = where - (off + 4) if kind == 3 else where
            struct.pack_into('<I', rec, off, len(s) << 16 | loc)
            tail += s
        elif kind == 0 and size in (1, 2, 4, 8) and not flags & 8:
            rec[off:off + size] = ((i * 0x0101010101010101) & ((1 << (8 * size)) - 1)).to_bytes(size, 'little')
        elif kind == 1 and flags & 2:
            rec[off:off + min(size, 4)] = b'abc\0'[:min(size, 4)]
    text = open(path, 'rb').read()
    return bytes([0x02 | 0x04 | (0x40 if '/syscalls/' in path else 0), 64]) + text + b'\0' + bytes(rec + tail)

def main():
    src, dst, events = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(dst, exist_ok=True)
    for ev in events:
        data = seed(os.path.join(src, ev, 'format'))
        with open(os.path.join(dst, ev.replace('/', '-')), 'wb') as f:
            f.write(data)

if __name__ == '__main__':
    main()
