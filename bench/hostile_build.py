#!/usr/bin/env python3
"""Build the hostile trace.dat files of issue 37 from a small v7 capture.

    bench/hostile_build.py SRC.dat OUTDIR

Each file is SRC with sections appended at its end (a v7 reader finds
sections by walking them back to back, and through the options) and, where
it needs one, an option patched to point at them.  Every file is sound by
the v7 layout; what makes it hostile is what it asks a reader to inflate or
hold.  Compression goes through the `zstd` command (trace-cmd's frames
carry no content size; neither do these, made from a pipe).  Prints one
line per file: its name and the bytes added to SRC.

Layout (docs/tracedat.md, /work/shared/specs/ftrace-formats.md 3.3): a
16-byte section header {u16 id, u16 flags (1: compressed), u32 description
string id, u64 size}; a compressed section body {u32 compressed size, u32
uncompressed size, bytes}; compressed CPU data {u32 chunk count, per chunk
u32 compressed size, u32 uncompressed size, bytes}; options {u16 id, u32
size, payload}, DONE (id 0) carrying the u64 offset of the next options
section.
"""
import os
import struct
import subprocess
import sys

GiB = 1 << 30
MiB = 1 << 20
NO_NAME = 0xFFFFFFFF  # a section without a description string
S_BUFFER, S_STRINGS, S_KALLSYMS, S_CMDLINES = 3, 15, 19, 21


def zstd_of(shell_cmd):
    """The zstd frame of what shell_cmd writes (streamed: no content size)."""
    return subprocess.run(["sh", "-c", shell_cmd + " | zstd -q -3 -c"], check=True,
                          stdout=subprocess.PIPE).stdout


class Dat:
    def __init__(self, path):
        self.b = bytearray(open(path, "rb").read())
        b = self.b
        if b[:3] != b"\x17\x08\x44" or b[3:10] != b"tracing":
            sys.exit(f"{path}: not a trace.dat")
        p = b.index(0, 10) + 1
        if bytes(b[10:p - 1]) != b"7" or b[p] != 0:
            sys.exit(f"{path}: not a little-endian v7 trace.dat")
        self.page = struct.unpack_from("<I", b, p + 2)[0]
        p += 6
        p = b.index(0, p) + 1  # compression name
        p = b.index(0, p) + 1  # its version
        self.opts_at = p       # u64 offset of the first options section
        self.orig_len = len(b)

    def options(self):
        """(option id, payload offset, payload size, options section offset)
        along the chain; options sections are uncompressed in the sample."""
        off = struct.unpack_from("<Q", self.b, self.opts_at)[0]
        while off:
            sid, flags, _, size = struct.unpack_from("<HHIQ", self.b, off)
            if sid != 0 or flags & 1:
                sys.exit("options section compressed or not an options section")
            q, end, nxt = off + 16, off + 16 + size, 0
            while q < end:
                oid, osz = struct.unpack_from("<HI", self.b, q)
                yield oid, q + 6, osz, off
                if oid == 0:
                    nxt = struct.unpack_from("<Q", self.b, q + 6)[0]
                    break
                q += 6 + osz
            off = nxt

    def option(self, want):
        for oid, at, size, _ in self.options():
            if oid == want:
                return at, size
        sys.exit(f"no option {want}")

    def last_link(self):
        """Payload offset of the DONE option that points at the options
        section holding the BUFFER option (that section is replaced)."""
        prev = None
        for oid, at, _, sect in self.options():
            if oid == S_BUFFER:
                return prev, sect
            if oid == 0:
                prev = at
        sys.exit("no BUFFER option")

    def append(self, sid, flags, body, align=1):
        """A section at the end; `body` starts `align`-aligned in the file
        (CPU data sits on page boundaries), zeros before it inside the
        section.  Returns (section offset, file offset of body)."""
        off = len(self.b)
        pad = (-(off + 16)) % align
        self.b += struct.pack("<HHIQ", sid, flags, NO_NAME, pad + len(body))
        self.b += b"\0" * pad + body
        return off, off + 16 + pad

    def compressed(self, sid, frame, usize):
        return self.append(sid, 1, struct.pack("<II", len(frame), usize) + frame)[0]

    def set_u64(self, at, v):
        struct.pack_into("<Q", self.b, at, v)

    def replace_buffer(self, cpu_entries, section_off):
        """A new top BUFFER option (name "", clock local) listing
        cpu_entries [(cpu, offset, size)], in a new options section that
        the chain now reaches instead of the old one."""
        link, _ = self.last_link()
        payload = struct.pack("<Q", section_off) + b"\0local\0"
        payload += struct.pack("<II", self.page, len(cpu_entries))
        payload += b"".join(struct.pack("<IQQ", *e) for e in cpu_entries)
        body = struct.pack("<HI", S_BUFFER, len(payload)) + payload
        body += struct.pack("<HIQ", 0, 8, 0)
        off, _ = self.append(0, 0, body)
        self.set_u64(link, off)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.b)
        return len(self.b) - self.orig_len


def chunked_cpu(frame, usize):
    """One CPU's compressed data: a single chunk."""
    return struct.pack("<III", 1, len(frame), usize) + frame


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    zeros_1g = zstd_of(f"head -c {GiB} /dev/zero")
    zeros_512k = zstd_of(f"head -c {512 << 10} /dev/zero")
    made = []

    # one chunk inflating to 1 GiB of (empty) pages, listed for 5 CPUs
    d = Dat(src)
    sect, data = d.append(S_BUFFER, 1, chunked_cpu(zeros_1g, GiB), d.page)
    size = len(d.b) - data - 4  # trace-cmd's size leaves out the chunk count
    d.replace_buffer([(c, data, size) for c in range(5)], sect)
    made.append(("chunk-1g-5cpus.dat", d))

    # kallsyms: u32 size + 1 GiB (less the size word) of "0 T a" lines
    d = Dat(src)
    text = (GiB - 4) // 6 * 6
    frame = zstd_of(f"{{ printf '{le32_printf(text)}'; yes '0 T a' | head -c {text}; }}")
    d.set_u64(d.option(S_KALLSYMS)[0], d.compressed(S_KALLSYMS, frame, text + 4))
    made.append(("kallsyms-1g.dat", d))

    # saved cmdlines: u64 size + 512 MiB of "1 a" lines
    d = Dat(src)
    text = 512 * MiB
    frame = zstd_of(f"{{ printf '{le64_printf(text)}'; yes '1 a' | head -c {text}; }}")
    d.set_u64(d.option(S_CMDLINES)[0], d.compressed(S_CMDLINES, frame, text + 8))
    made.append(("cmdlines-512m.dat", d))

    # four compressed STRINGS sections of 1 GiB of zeros each
    d = Dat(src)
    for _ in range(4):
        d.compressed(S_STRINGS, zeros_1g, GiB)
    made.append(("strings-4x1g.dat", d))

    # 8192 CPUs, every one's range the same chunk of 512 KiB of pages
    d = Dat(src)
    sect, data = d.append(S_BUFFER, 1, chunked_cpu(zeros_512k, 512 << 10), d.page)
    size = len(d.b) - data - 4
    d.replace_buffer([(c, data, size) for c in range(8192)], sect)
    made.append(("cpus-8192.dat", d))

    # five more STRINGS sections of 16 bytes (a sound file)
    d = Dat(src)
    for i in range(5):
        d.append(S_STRINGS, 0, (b"extra%d" % i).ljust(16, b"\0"))
    made.append(("strings-5x16.dat", d))

    for name, d in made:
        print(name, d.write(os.path.join(out, name)))


def le32_printf(v):
    return "".join("\\%03o" % x for x in struct.pack("<I", v))


def le64_printf(v):
    return "".join("\\%03o" % x for x in struct.pack("<Q", v))


if __name__ == "__main__":
    main()
