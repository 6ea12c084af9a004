#!/usr/bin/env python3
"""oracle_clahe.py GPUFILT [SEED [BACKEND [PART...]]] - --clahe through
gpufilt, on every layout (gray, gray+alpha, RGB, RGBA; 8 and 16 bits),
against OpenCV: cv2.createCLAHE(clipLimit=CLIP, tileGridSize=(W, H)).apply()
on each colour channel (uint8 or uint16), alpha kept, byte for byte.

- layouts: the images of oracle_tone.py (random ones of sizes 1x1, 2x2, 1xN,
  Nx1 and primes, which no grid divides, each channel from a random
  sub-range; one-valued and two-valued images; the photos of samples/ in
  every layout), each with a fixed CLIP and grid from a list that covers
  the default (no value), CLIP 0 (no clipping), CLIP 1000, a limit of 1,
  one tile, odd and tall grids and 64x64, and with a random CLIP (0 to 20)
  and grid (1 to 64 a side; 1 to 16 at 16 bits, whose tables OpenCV makes
  at 128 KiB a tile).
- sizes: one gray image of each size from 1x1 to 9x9 with grids from 1x1 to
  9x9, tiles bigger than the image's side included, 8 and 16 bits.
- chains: --resize 50% --clahe (Pillow's lanczos resize first),
  --clahe 3,4x4 --mean 3 (then the box mean by its definition), --equalize
  --clahe 1,2x3 (cv2.equalizeHist first), --clahe --clahe 0,1x1.

PART picks some of layouts, sizes, chains (default: all). Prints the seed
(SEED, else GPUFILT_TEST_SEED, else a fresh one) and the command that
replays it; every difference (up to 25 shown) names the part, image,
layout and options and the first differing sample, and exits 1. BACKEND
(cpu by default) goes to --backend; the runs go on every core. Run it with
Debian's python3 (numpy, OpenCV, Pillow)."""
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import box_mean, write_pam  # noqa: E402
from oracle_resize import pillow_resize  # noqa: E402
from oracle_tone import (equalize_ref, label_of, oracle_main, per_channel,  # noqa: E402
                         random_image, run_cases)

PARTS = ("layouts", "sizes", "chains")
# (CLIP, W, H) of --clahe CLIP,WxH; None: --clahe without a value (2, 8x8)
FIXED = [None, (2, 8, 8), (0, 8, 8), (40, 1, 1), (0.01, 7, 2), (4.5, 2, 9), (1000, 5, 4),
         (3, 64, 64), (1, 13, 6), (2.5, 3, 3), (0, 1, 64), (7, 16, 1)]


def clahe_ref(a, bits, clip, gw, gh):
    """OpenCV's CLAHE on each colour channel, alpha as it is."""
    dt = np.uint8 if bits == 8 else np.uint16
    cl = cv2.createCLAHE(clipLimit=float(clip), tileGridSize=(gw, gh))
    return per_channel(a, lambda x: cl.apply(np.ascontiguousarray(x.astype(dt))).astype(np.int64))


def args_of(p):
    return ["--clahe"] if p is None else ["--clahe", "%g,%dx%d" % p]


def params(p):
    return (2, 8, 8) if p is None else p


def part_layouts(ctx, imgs, rng):
    cases = []
    for k, (n, a, b, path) in enumerate(imgs):
        most = 64 if b == 8 else 16
        fixed = FIXED[k % len(FIXED)]
        if fixed is not None and b == 16 and fixed[1] * fixed[2] > 256:
            fixed = (fixed[0], 16, 16)
        rand = (round(float(rng.uniform(0, 20)), 2), int(rng.integers(1, most + 1)),
                int(rng.integers(1, most + 1)))
        for p in (fixed, rand):
            cases.append((label_of(n, a, b), path, args_of(p), clahe_ref(a, b, *params(p)), b))
    run_cases(ctx, cases)


def part_sizes(ctx, imgs, rng):
    gpufilt, backend, tmp, F = ctx
    cases = []
    for bits in (8, 16):
        for w in range(1, 10):
            for h in range(1, 10):
                a = random_image(rng, w, h, 1, bits)
                path = os.path.join(tmp, "size-%d-%dx%d.pam" % (bits, w, h))
                write_pam(path, a, bits)
                gw, gh = int(rng.integers(1, 10)), int(rng.integers(1, 10))
                clip = [0, 1, 2, 40][(w + h) % 4]
                cases.append((label_of("random %dx%d" % (w, h), a, bits), path,
                              ["--clahe", "%g,%dx%d" % (clip, gw, gh)],
                              clahe_ref(a, bits, clip, gw, gh), bits))
    run_cases(ctx, cases)


def part_chains(ctx, imgs, rng):
    gpufilt, backend, tmp, F = ctx
    cases = []
    for k, (ch, bits) in enumerate([(c, b) for b in (8, 16) for c in (1, 2, 3, 4)]):
        w, h = 2 * int(rng.integers(3, 120)), 2 * int(rng.integers(3, 120))
        a = random_image(rng, w, h, ch, bits)
        path = os.path.join(tmp, "chain%d.pam" % k)
        write_pam(path, a, bits)
        label = label_of("random %dx%d" % (w, h), a, bits)
        cases.append((label, path, ["--resize", "50%", "--clahe"],
                      clahe_ref(pillow_resize(a, bits, w // 2, h // 2, "lanczos"), bits, 2, 8, 8),
                      bits))
        cases.append((label, path, ["--clahe", "3,4x4", "--mean", "3"],
                      box_mean(clahe_ref(a, bits, 3, 4, 4), 3, "replicate", 0), bits))
        cases.append((label, path, ["--clahe", "--clahe", "0,1x1"],
                      clahe_ref(clahe_ref(a, bits, 2, 8, 8), bits, 0, 1, 1), bits))
        if bits == 8:
            cases.append((label, path, ["--equalize", "--clahe", "1,2x3"],
                          clahe_ref(equalize_ref(a, bits), bits, 1, 2, 3), bits))
    run_cases(ctx, cases)


def main():
    oracle_main("oracle_clahe.py", PARTS, globals(), 12)


if __name__ == "__main__":
    main()
