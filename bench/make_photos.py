#!/usr/bin/env python3
"""make_photos.py OUTDIR N W H SUBSAMPLING QUALITY [FIRST] - N distinct JPEG
colour photos of W x H for the batch benchmarks, numbered from FIRST (0):
photo i is a crop, mirror and brightness of a sample photo drawn from a
generator seeded with i, resized by Pillow (bicubic) and saved with chroma
subsampling 444, 422 or 420 at QUALITY; so parts made by several processes
make the same set as one. Run from the repository root. Needs Pillow."""
import glob
import os
import random
import sys

from PIL import Image, ImageEnhance


def main():
    out, n, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    sub = {"444": 0, "422": 1, "420": 2}[sys.argv[5]]
    quality = int(sys.argv[6])
    first = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    os.makedirs(out, exist_ok=True)
    srcs = [im for im in (Image.open(p) for p in
                          sorted(glob.glob("samples/*.png") + glob.glob("samples/*.jpg")))
            if im.mode == "RGB"]
    for i in range(first, first + n):
        rng = random.Random(i)
        im = srcs[i % len(srcs)]
        cw = int(im.width * rng.uniform(0.6, 1.0))
        ch = int(im.height * rng.uniform(0.6, 1.0))
        x, y = rng.randrange(im.width - cw + 1), rng.randrange(im.height - ch + 1)
        p = im.crop((x, y, x + cw, y + ch)).resize((w, h), Image.BICUBIC)
        if rng.random() < 0.5:
            p = p.transpose(Image.FLIP_LEFT_RIGHT)
        p = ImageEnhance.Brightness(p).enhance(rng.uniform(0.8, 1.2))
        p.save(os.path.join(out, "p%05d.jpg" % i), quality=quality, subsampling=sub)


if __name__ == "__main__":
    main()
