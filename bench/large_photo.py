#!/usr/bin/env python3
"""large_photo.py IN.pgm W H OUT.pgm - a W x H test image from a smaller photo:
nearest-neighbour upscaling of IN (binary PGM, maxval 255) by the smallest
integer factor that covers W x H, cropped. Smooth it afterwards with
`gpufilt OUT.pgm --mean 5 --mean 5 -o photo.png` for photo-like statistics."""
import sys


def main():
    src, w, h, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    data = open(src, "rb").read()
    fields, pos = [], 2
    while len(fields) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while data[pos:pos + 1].isdigit():
            pos += 1
        fields.append(int(data[start:pos]))
    sw, sh, _ = fields
    pix = data[pos + 1:pos + 1 + sw * sh]
    f = max(-(-w // sw), -(-h // sh))
    with open(dst, "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % (w, h))
        for y in range(h):
            row = pix[(y // f) * sw:(y // f + 1) * sw]
            out.write(bytes(b for b in row for _ in range(f))[:w])


if __name__ == "__main__":
    main()
