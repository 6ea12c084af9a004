"""resize_cpu.py [GPUFILT] [RUNS] - the CPU resize against Pillow (one
thread, as it runs) and OpenCV (cv2.resize on all cores), in the same run:
8000x8000 gray and RGB 8-bit photo-like images down to 1000x1000 (lanczos;
OpenCV's INTER_AREA and INTER_LANCZOS4 beside it) and 2000x2000 up to
8000x8000. gpufilt's time is its resize step (--timings json, --backend
cpu, every core), each a fresh process; the peers' are the call alone, in
one process after a warm-up. Medians of RUNS (default 5), ms. The bytes of
gpufilt and Pillow are checked equal in the same run. Run from the
repository root after `make`."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np
from PIL import Image

gpufilt = sys.argv[1] if len(sys.argv) > 1 else './gpufilt'
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
w = tempfile.mkdtemp(dir=os.environ.get('BENCH_DIR', '/dev/shm' if os.path.isdir('/dev/shm') else None))
rng = np.random.default_rng(5)


def photo(side, ch):
    small = rng.integers(0, 256, (side // 16, side // 16, ch), dtype=np.uint8)
    img = cv2.resize(small, (side, side), interpolation=cv2.INTER_CUBIC)
    return img.reshape(side, side, ch)


def med(f):
    f()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def gf(path, geom, out):
    ts = []
    for _ in range(runs + 1):
        r = subprocess.run([gpufilt, path, '--resize', geom, '-o', out, '--backend', 'cpu',
                            '--timings', 'json'], capture_output=True, text=True, check=True)
        line = [ln for ln in r.stderr.splitlines() if ln.startswith('{')][-1]
        ts.append(next(s['ms'] for s in json.loads(line)['steps'] if s['step'].startswith('resize')))
    return statistics.median(ts[1:])


print(f'{os.cpu_count()} cores; medians of {runs}, ms')
print('case | gpufilt | Pillow LANCZOS | gpufilt/Pillow | cv2 INTER_AREA | cv2 LANCZOS4 | gpufilt/AREA')
for name, side, ch, out in [('gray 8000->1000', 8000, 1, 1000), ('RGB 8000->1000', 8000, 3, 1000),
                            ('gray 2000->8000', 2000, 1, 8000), ('RGB 2000->8000', 2000, 3, 8000)]:
    a = photo(side, ch)
    src = os.path.join(w, 'in.png' if ch == 3 else 'in.pgm')
    cv2.imwrite(src, a if ch == 1 else a[..., ::-1])
    dst = os.path.join(w, 'out.png')
    t_gf = gf(src, f'{out}x{out}!', dst)
    im = Image.fromarray(a[..., 0] if ch == 1 else a)
    ref = np.asarray(im.resize((out, out), Image.LANCZOS))
    got = cv2.imread(dst, cv2.IMREAD_UNCHANGED)
    got = got if ch == 1 else got[..., ::-1]
    same = 'equal' if np.array_equal(ref, got) else 'DIFFERENT'
    t_pil = med(lambda: im.resize((out, out), Image.LANCZOS))
    t_area = med(lambda: cv2.resize(a, (out, out), interpolation=cv2.INTER_AREA))
    t_l4 = med(lambda: cv2.resize(a, (out, out), interpolation=cv2.INTER_LANCZOS4))
    print(f'{name} | {t_gf:.1f} | {t_pil:.1f} | {t_gf / t_pil:.3f} | {t_area:.1f} | {t_l4:.1f} | '
          f'{t_gf / t_area:.2f} ({same})')
