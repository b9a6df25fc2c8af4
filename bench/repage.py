#!/usr/bin/env python3
"""Lay the events of raw 4 KiB sub-buffers out again in larger sub-buffers:
    python3 bench/repage.py SIZE IN.raw OUT.raw

For bench/make_mix.sh on a kernel that refuses buffer_subbuf_size_kb (a
sandboxed guest answers EPERM even for the current size).  Each event's
bytes are kept as the kernel wrote them, only its 27-bit time delta is
computed again against the event before it in the new sub-buffer; a gap
that does not fit gets a time-extend record before it, as the kernel's
writer does.  Time stamps (type 31) and extends are folded into the
events' times, padding (discarded events) is left out, and each new
sub-buffer is filled with whole records up to SIZE, its header's time the
first event's.  Little-endian, 8-byte long (16-byte sub-buffer header).
"""
import struct
import sys

HDR = 16
DELTA_MAX = (1 << 27) - 1


def events(data, size):
    """(ts, record bytes with the length words, no header) of each event."""
    for base in range(0, len(data) - HDR + 1, size):
        ts, commit = struct.unpack_from("<QQ", data, base)
        commit &= (1 << 27) - 1
        pos, end = base + HDR, base + HDR + min(commit, size - HDR)
        while pos + 4 <= end:
            (w,) = struct.unpack_from("<I", data, pos)
            tl, delta = w & 31, w >> 5
            if tl == 29:  # padding: null padding ends the page
                (n,) = struct.unpack_from("<I", data, pos + 4)
                if delta == 0 and n == 0:
                    break
                pos += 4 + n
                ts += delta
            elif tl == 30:  # time extend
                (hi,) = struct.unpack_from("<I", data, pos + 4)
                ts += (hi << 27) | delta
                pos += 8
            elif tl == 31:  # absolute time stamp (59 bits)
                (hi,) = struct.unpack_from("<I", data, pos + 4)
                ts = (ts & ~((1 << 59) - 1)) | (hi << 27) | delta
                pos += 8
            else:
                ts += delta
                if tl == 0:
                    (n,) = struct.unpack_from("<I", data, pos + 4)
                    body = data[pos + 4:pos + 4 + n]
                    pos += 4 + n
                else:
                    body = data[pos + 4:pos + 4 + 4 * tl]
                    pos += 4 + 4 * tl
                yield ts, tl, body


def repage(data, insize, outsize):
    out = bytearray()
    page = None
    for ts, tl, body in events(data, insize):
        need = 4 + len(body)
        if page is not None:
            gap = ts - last
            if gap < 0:
                gap = 0  # a CPU's events are in order; keep the stream sane
            ext = gap > DELTA_MAX
            if len(page) + need + (8 if ext else 0) > outsize:
                out += close(page, outsize)
                page = None
        if page is None:
            page = bytearray(struct.pack("<QQ", ts, 0))
            gap, ext = 0, False
        if ext:
            page += struct.pack("<II", 30 | ((gap & DELTA_MAX) << 5), gap >> 27)
            gap = 0
        page += struct.pack("<I", tl | (gap << 5)) + body
        last = ts
    if page is not None:
        out += close(page, outsize)
    return out


def close(page, outsize):
    struct.pack_into("<Q", page, 8, len(page) - HDR)
    return bytes(page) + bytes(outsize - len(page))


def main():
    size, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(src, "rb") as f:
        data = f.read()
    with open(dst, "wb") as f:
        f.write(repage(data, 4096, size))


if __name__ == "__main__":
    main()
