#!/bin/sh
# jpeg_damage.sh [N] - how often nvJPEG's hardware decoder yields an image
# where libjpeg-turbo refuses the file: N (400) damaged copies of JPEG
# photos (bench/make_photos.py, 4:2:0 and 4:4:4), each with bytes of its
# entropy-coded data changed (1 to 16 random bytes) or a run of them removed,
# the end-of-image marker kept (a file without one is never sent to the
# GPU). Both backends take the batch with a histogram per file; the table
# counts the outcomes. Run from the repository root after `make` on a GPU
# machine; needs Pillow.
set -eu
n=${1:-400}
. bench/python.sh
py=$(pick_python "PIL")
work_dir
$py bench/make_photos.py "$w/src" 20 2400 1600 420 90 0
$py bench/make_photos.py "$w/src" 20 2400 1600 444 90 20
$py - "$w/src" "$w/bad" "$n" <<'PY'
import glob, os, random, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out)
files = sorted(glob.glob(src + "/*.jpg"))
rng = random.Random(7)
for i in range(n):
    d = bytearray(open(files[i % len(files)], "rb").read())
    sos = d.find(b"\xff\xda")
    start, end = sos + 2 + (d[sos + 2] << 8 | d[sos + 3]), len(d) - 2
    kind = i % 4
    if kind < 3:  # change 1, 4 or 16 bytes (never a marker's)
        for _ in range((1, 4, 16)[kind]):
            p = rng.randrange(start, end)
            if d[p] != 0xFF and d[p - 1] != 0xFF:
                d[p] = rng.choice([b for b in range(255) if b != d[p]])
    else:  # remove a run of 1 to 64 bytes, not ending inside a marker
        p = rng.randrange(start, end - 64)
        del d[p:p + rng.randrange(1, 65)]
        while d[p - 1] == 0xFF:
            del d[p - 1]
            p -= 1
    open("%s/d%04d.jpg" % (out, i), "wb").write(bytes(d))
PY
# nvJPEG opens in about 0.3 s, the CPU decoding meanwhile: 300 links to one
# sound photo go first so that the damaged files meet an open decoder
for i in $(seq 100 399); do ln "$w/src/p00000.jpg" "$w/bad/0-ok$i.jpg"; done
for be in cpu cuda; do
	./gpufilt "$w"/bad/*.jpg --hist "$w/$be/{stem}.csv" --backend $be --jobs 16 \
		--timings json 2>"$w/$be.json" >/dev/null || true
done
$py - "$w" "$n" <<'PY'
import os, sys
w, n = sys.argv[1], int(sys.argv[2])
c = {"both refuse": 0, "both decode, same pixels": 0, "both decode, different pixels": 0,
     "CPU refuses, GPU decodes": 0, "CPU decodes, GPU refuses": 0}
for i in range(n):
    a, b = ("%s/%s/d%04d.csv" % (w, be, i) for be in ("cpu", "cuda"))
    ea, eb = os.path.exists(a), os.path.exists(b)
    if ea and eb:
        same = open(a).read() == open(b).read()
        c["both decode, %s pixels" % ("same" if same else "different")] += 1
    elif not ea and not eb:
        c["both refuse"] += 1
    elif eb:
        c["CPU refuses, GPU decodes"] += 1
    else:
        c["CPU decodes, GPU refuses"] += 1
import json
gpu = 0
for line in open(w + "/cuda.json"):
    if line.startswith("{") and '"jpeg-gpu"' in line and "/bad/d" in json.loads(line).get("input", ""):
        gpu += 1
print("damaged JPEG photos: %d (4:2:0 and 4:4:4, 2400x1600); decoded by nvJPEG: %d" % (n, gpu))
for k, v in c.items():
    print("  %-32s %4d  %5.1f%%" % (k, v, 100.0 * v / n))
PY
