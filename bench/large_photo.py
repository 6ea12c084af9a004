#!/usr/bin/env python3
"""large_photo.py IN.pnm W H OUT.pnm - a W x H test image from a smaller photo:
nearest-neighbour upscaling of IN (binary PGM or PPM, maxval 255) by the
smallest integer factor that covers W x H, cropped, in IN's format. Smooth it
afterwards with `gpufilt OUT.pnm --mean 5 --mean 5 -o photo.png` for
photo-like statistics."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgm import read_pnm  # noqa: E402


def main():
    src, w, h, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    sw, sh, c, pix = read_pnm(src)
    f = max(-(-w // sw), -(-h // sh))
    with open(dst, "wb") as out:
        out.write(b"P%d\n%d %d\n255\n" % (6 if c == 3 else 5, w, h))
        for y in range(h):
            row = pix[(y // f) * sw * c:(y // f + 1) * sw * c]
            px = [row[i:i + c] for i in range(0, len(row), c)]
            out.write(b"".join(p for p in px for _ in range(f))[:w * c])


if __name__ == "__main__":
    main()
