#!/usr/bin/env python3
"""make_pngs.py OUTDIR [SEED] - PNG files of every colour type and bit depth
the format allows, plain and Adam7-interlaced, with and without tRNS, each
beside NAME.pam: the image gpufilt must decode it to, computed here by the
rules (the stored channels and depth; 1-, 2- and 4-bit gray scaled to 8 bits
by bit replication; a palette as RGB, RGBA with tRNS; tRNS on gray or RGB
as alpha, 0 for the key colour and the maximum elsewhere), written as
gpufilt writes PAM. Written with zlib and struct only, so it is independent
of any PNG library."""
import os
import random
import struct
import sys
import zlib

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


def decoded(samples, ctype, depth, plte, trns):
    """The samples gpufilt decodes a pixel to."""
    if ctype == 3:
        i = samples[0]
        return tuple(plte[i]) + ((trns[i] if i < len(trns) else 255,) if trns else ())
    px = tuple(s * (255 // ((1 << depth) - 1)) if depth < 8 else s for s in samples)
    if trns is not None and ctype in (0, 2):
        key = struct.unpack(">%dH" % len(samples), trns)
        px += (0 if tuple(samples) == key else (65535 if depth == 16 else 255),)
    return px


def write_pam(path, w, h, rows, bits):
    ch = len(rows[0][0])
    tuple_type = {1: "GRAYSCALE", 2: "GRAYSCALE_ALPHA", 3: "RGB", 4: "RGB_ALPHA"}[ch]
    fmt = ">H" if bits == 16 else "B"
    with open(path, "wb") as f:
        f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n" % (
            w, h, ch, (1 << bits) - 1, tuple_type.encode()))
        f.write(b"".join(struct.pack(fmt, s) for row in rows for px in row for s in px))


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
                write_pam(os.path.join(out, name + ".pam"), w, h,
                          [[decoded(pix[y][x], ctype, depth, plte, trns) for x in range(w)]
                           for y in range(h)], 16 if depth == 16 else 8)
                n += 1
    print("make_pngs: %d files in %s" % (n, out))


if __name__ == "__main__":
    main()
