#!/usr/bin/env python3
"""make_pngs.py OUTDIR [SEED] - PNG files of every colour type and bit depth
the format allows, plain and Adam7-interlaced, with and without tRNS, each
beside NAME.pgm: the 8-bit luma gpufilt must decode it to, computed here by
the rule (scale each sample to 8 bits as round(v * 255 / max), then
(77 R + 150 G + 29 B) >> 8; gray as is; alpha dropped). Written with zlib and
struct only, so it is independent of any PNG library."""
import os
import random
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from pgm import write_pgm  # noqa: E402

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def chunk(kind, data):
    c = struct.pack(">I", len(data)) + kind + data
    return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def pack_row(samples, depth):
    """Samples of one row (ints) into bytes at the bit depth."""
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out, acc, bits = bytearray(), 0, 0
    for s in samples:
        acc = (acc << depth) | s
        bits += depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


def png(w, h, ctype, depth, pix, interlace, plte=None, trns=None):
    """pix[y][x] is a tuple of samples (palette index for type 3)."""
    raw = bytearray()
    if interlace:
        for x0, y0, dx, dy in ADAM7:
            xs = list(range(x0, w, dx))
            if not xs:
                continue
            for y in range(y0, h, dy):
                raw += b"\0" + pack_row([s for x in xs for s in pix[y][x]], depth)
    else:
        for y in range(h):
            raw += b"\0" + pack_row([s for x in range(w) for s in pix[y][x]], depth)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0,
                                                             1 if interlace else 0))
    if plte:
        out += chunk(b"PLTE", b"".join(bytes(c) for c in plte))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    return out + chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b"")


def scale(v, depth):
    m = (1 << depth) - 1
    return (v * 255 + m // 2) // m


def luma(samples, ctype, depth, plte):
    if ctype == 3:
        r, g, b = plte[samples[0]]
        return (77 * r + 150 * g + 29 * b) >> 8
    if ctype in (0, 4):
        return scale(samples[0], depth)
    r, g, b = (scale(s, depth) for s in samples[:3])
    return (77 * r + 150 * g + 29 * b) >> 8


def main():
    out = sys.argv[1]
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    os.makedirs(out, exist_ok=True)
    kinds = [(0, d) for d in (1, 2, 4, 8, 16)] + [(2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8),
                                                  (4, 8), (4, 16), (6, 8), (6, 16)]
    nch = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
    n = 0
    for ctype, depth in kinds:
        for w, h in ((1, 1), (7, 5), (33, 17), (16, 3)):
            for interlace in (0, 1):
                plte = None
                if ctype == 3:
                    plte = [tuple(rng.randrange(256) for _ in range(3))
                            for _ in range(1 << min(depth, 8))]
                top = len(plte) if plte else 1 << depth
                pix = [[tuple(rng.randrange(top) for _ in range(nch[ctype])) for _ in range(w)]
                       for _ in range(h)]
                trns = None
                if ctype == 3 and w == 33:
                    trns = bytes(rng.randrange(256) for _ in range(len(plte) // 2 or 1))
                elif ctype == 0 and w == 33:
                    trns = struct.pack(">H", pix[0][0][0])
                elif ctype == 2 and w == 33:
                    trns = struct.pack(">HHH", *pix[0][0])
                name = "c%d-d%d-%dx%d%s%s" % (ctype, depth, w, h, "-i" if interlace else "",
                                               "-t" if trns else "")
                with open(os.path.join(out, name + ".png"), "wb") as f:
                    f.write(png(w, h, ctype, depth, pix, interlace, plte, trns))
                write_pgm(os.path.join(out, name + ".pgm"), w, h,
                          [luma(pix[y][x], ctype, depth, plte) for y in range(h) for x in range(w)])
                n += 1
    print("make_pngs: %d files in %s" % (n, out))


if __name__ == "__main__":
    main()
