#!/usr/bin/env python3
"""ref.py - independent helpers for the CLI tests, in plain Python.
  ref.py random W H SEED OUT.pgm      a random binary PGM
  ref.py pgm16 OUT.pgm                a 16-bit PGM with known values
  ref.py mean K BORDER IN.pgm OUT.pgm box mean by its definition (brute force)
  ref.py cmp A.pgm B.pgm              exit 0 when the pixels are equal
  ref.py hist IN.pgm                  value,count,cumulative CSV on stdout
  ref.py colsum IN.pgm / rowsum IN.pgm  index,sum,mean CSV on stdout
  ref.py const W H V OUT.pgm          a constant image
BORDER is replicate, reflect101 or constant=V."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from pgm import read_pgm, write_pgm  # noqa: E402


def padded(w, h, pix, x, y, border):
    if border.startswith("constant"):
        if 0 <= x < w and 0 <= y < h:
            return pix[y * w + x]
        return int(border.split("=")[1]) if "=" in border else 0
    out = []
    for c, n in ((x, w), (y, h)):
        if border == "replicate" or n == 1:
            c = min(max(c, 0), n - 1)
        else:
            while c < 0 or c >= n:
                c = -c if c < 0 else 2 * (n - 1) - c
        out.append(c)
    return pix[out[1] * w + out[0]]


def main():
    cmd = sys.argv[1]
    if cmd == "random":
        w, h, seed = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        rng = random.Random(seed)
        write_pgm(sys.argv[5], w, h, [rng.randrange(256) for _ in range(w * h)])
    elif cmd == "pgm16":
        with open(sys.argv[2], "wb") as f:
            f.write(b"P5\n3 1\n65535\n\xff\xff\x80\x00\x00\x80")
    elif cmd == "mean":
        k, border = int(sys.argv[2]), sys.argv[3]
        w, h, pix = read_pgm(sys.argv[4])
        r, area = k // 2, k * k
        out = []
        for y in range(h):
            for x in range(w):
                s = sum(padded(w, h, pix, x + dx, y + dy, border)
                        for dy in range(-r, r + 1) for dx in range(-r, r + 1))
                out.append((s + area // 2) // area)
        write_pgm(sys.argv[5], w, h, out)
    elif cmd == "hist":
        w, h, pix = read_pgm(sys.argv[2])
        counts = [0] * 256
        for p in pix:
            counts[p] += 1
        cum = 0
        print("value,count,cumulative")
        for v in range(256):
            cum += counts[v]
            print("%d,%d,%d" % (v, counts[v], cum))
    elif cmd in ("colsum", "rowsum"):
        w, h, pix = read_pgm(sys.argv[2])
        if cmd == "colsum":
            sums = [sum(pix[y * w + x] for y in range(h)) for x in range(w)]
            count = h
        else:
            sums = [sum(pix[y * w:(y + 1) * w]) for y in range(h)]
            count = w
        print("index,sum,mean")
        for i, s in enumerate(sums):
            print("%d,%d,%.4f" % (i, s, s / count))
    elif cmd == "const":
        w, h, v = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        write_pgm(sys.argv[5], w, h, [v] * (w * h))
    elif cmd == "cmp":
        a, b = read_pgm(sys.argv[2]), read_pgm(sys.argv[3])
        sys.exit(0 if a == b else 1)


if __name__ == "__main__":
    main()
