"""oracle_draft.py GPUFILT SEED BACKEND - --draft against Pillow: fresh
random JPEGs (gray and colour, 4:4:4, 4:2:2 and 4:2:0, random sizes and
qualities) shrunk to random sizes by every filter; gpufilt's bytes must
equal Pillow's im.draft(mode, (2w, 2h)) then im.resize((w, h), FILTER), at
each of the scales 1, 1/2, 1/4 and 1/8 (each is drawn). Also: a geometry
that keeps the aspect gives the size the whole image would get, and
--auto-orient turns before the target is taken. Exits 1 on a mismatch,
naming the case and the seed."""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

GPUFILT, SEED, BACKEND = sys.argv[1], int(sys.argv[2]), sys.argv[3]
FILTERS = {'nearest': Image.NEAREST, 'box': Image.BOX, 'bilinear': Image.BILINEAR,
           'hamming': Image.HAMMING, 'bicubic': Image.BICUBIC, 'lanczos': Image.LANCZOS}
print(f'seed {SEED} (GPUFILT_TEST_SEED={SEED} replays it)')
rng = np.random.default_rng(SEED)
tmp = tempfile.mkdtemp()
bad = 0
scales = set()


def photo(w, h, gray):
    """A smooth random image (JPEG-like content), w x h."""
    base = rng.integers(0, 256, (max(h // 12, 1), max(w // 12, 1), 3)).astype(np.uint8)
    im = Image.fromarray(base).resize((w, h), Image.BICUBIC)
    return im.convert('L') if gray else im


def gpufilt(*args):
    r = subprocess.run([GPUFILT, *args, '-q', '--backend', BACKEND], capture_output=True,
                       text=True)
    if r.returncode:
        print('gpufilt', ' '.join(args), 'exited', r.returncode, r.stderr)
        sys.exit(1)


for t in range(48):
    w, h = [int(v) for v in rng.integers(16, 1200, 2)]
    sub = ['4:4:4', '4:2:2', '4:2:0'][t % 3]
    jpg, out = os.path.join(tmp, 'in.jpg'), os.path.join(tmp, 'out.png')
    photo(w, h, t % 5 == 0).save(jpg, quality=int(rng.integers(40, 98)), subsampling=sub)
    s = [1, 2, 4, 8][t % 4]  # aim at each scale: target so that min(W/2tw, H/2th) >= s
    tw = max(1, int(w // (2 * s) - rng.integers(0, 3)))
    th = max(1, int(h // (2 * s) - rng.integers(0, 3)))
    f = list(FILTERS)[t % 6]
    gpufilt(jpg, '--draft', '--filter', f, '--resize', f'{tw}x{th}!', '-o', out)
    src = Image.open(jpg)
    src.draft(src.mode, (2 * tw, 2 * th))
    scales.add(round(w / src.size[0]) if src.size[0] > 1 else 1)
    want = np.asarray(src.resize((tw, th), FILTERS[f]))
    got = np.asarray(Image.open(out))
    if got.shape != want.shape or (got != want).any():
        bad += 1
        where = np.argwhere(got != want)[:1].tolist() if got.shape == want.shape else ''
        print(f'MISMATCH {w}x{h} {sub} {src.mode} -> {tw}x{th} {f} (decoded at {src.size}):'
              f' {got.shape} vs {want.shape} {where} seed {SEED}')

# a geometry that keeps the aspect: the whole image's size, then the draft
for t in range(6):
    w, h = [int(v) for v in rng.integers(200, 1600, 2)]
    jpg, out = os.path.join(tmp, 'a.jpg'), os.path.join(tmp, 'a.png')
    photo(w, h, False).save(jpg, quality=90)
    box = int(rng.integers(20, 160))
    gpufilt(jpg, '--draft', '--resize', f'{box}x{box}', '-o', out)
    r = subprocess.run(['/usr/bin/convert', '-size', f'{w}x{h}', 'xc:gray', '-resize',
                        f'{box}x{box}', '-format', '%w %h', 'info:'], capture_output=True,
                       text=True, check=True)
    tw, th = map(int, r.stdout.split())
    src = Image.open(jpg)
    src.draft(src.mode, (2 * tw, 2 * th))
    want = np.asarray(src.resize((tw, th), Image.LANCZOS))
    got = np.asarray(Image.open(out))
    if got.shape != want.shape or (got != want).any():
        bad += 1
        print(f'MISMATCH {w}x{h} -> {box}x{box} (convert: {tw}x{th}): {got.shape} seed {SEED}')

# --auto-orient: the target is taken of the image turned upright
w, h = 900, 500
jpg, out = os.path.join(tmp, 'o.jpg'), os.path.join(tmp, 'o.png')
exif = Image.Exif()
exif[0x0112] = 6  # turn 90 degrees clockwise to view
photo(w, h, False).save(jpg, quality=90, exif=exif.tobytes())
gpufilt(jpg, '--auto-orient', '--draft', '--resize', '100', '-o', out)
got = Image.open(out)
if got.size != (100, 180):
    bad += 1
    print(f'--auto-orient --draft: {got.size}, not (100, 180) seed {SEED}')

if not {1, 2, 4, 8} <= scales:
    print('not every scale was drawn:', sorted(scales))
    bad += 1
print('checked, bad', bad)
sys.exit(1 if bad else 0)
