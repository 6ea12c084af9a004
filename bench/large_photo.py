#!/usr/bin/env python3
"""large_photo.py IN.pgm W H OUT.pgm - a W x H test image from a smaller photo:
nearest-neighbour upscaling of IN (binary PGM, maxval 255) by the smallest
integer factor that covers W x H, cropped. Smooth it afterwards with
`gpufilt OUT.pgm --mean 5 --mean 5 -o photo.png` for photo-like statistics."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgm import read_pgm  # noqa: E402


def main():
    src, w, h, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    sw, sh, pix = read_pgm(src)
    f = max(-(-w // sw), -(-h // sh))
    with open(dst, "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % (w, h))
        for y in range(h):
            row = pix[(y // f) * sw:(y // f + 1) * sw]
            out.write(bytes(b for b in row for _ in range(f))[:w])


if __name__ == "__main__":
    main()
