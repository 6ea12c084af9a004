#!/bin/sh
# codec_bench.sh [RUNS] [GPUFILT] - reading and writing one 14.7 MP 8-bit
# RGB photo-like image (4700x3128) as TIFF (Deflate with the horizontal
# predictor) and WebP (lossy at quality 90, and lossless), by gpufilt
# (--backend cpu), libvips (`vips copy`) and ImageMagick (`convert`), in
# the same run, on every core: each command's wall time as a process,
# median of RUNS (default 7) after one warm-up, ms. A write converts the
# PPM to the format; a read converts the format's file (each tool's own
# output) back to PPM, so both include a PPM's read or write (about 44 MB,
# from and to /dev/shm where it exists). Run from the repository root after
# `make`; needs python3 with numpy, vips (libvips-tools) and convert.
set -eu
. bench/python.sh
py=$(pick_python numpy)
runs=${1:-7}
gpufilt=${2:-./gpufilt}
base=/tmp
[ -d /dev/shm ] && base=/dev/shm
w=$(mktemp -d "$base/gf-codec-bench.XXXXXX")
trap 'rm -rf "$w"' EXIT
$py - "$w/in.ppm" <<'PY'
import sys
import numpy as np
h, w = 3128, 4700
y, x = np.mgrid[0:h, 0:w].astype(np.float32)
rng = np.random.default_rng(5)
img = np.empty((h, w, 3), np.float32)
for c in range(3):  # smooth shapes and a little sensor noise, as in a photo
    img[..., c] = 128 + 60 * np.sin(x / (90 + 30 * c)) * np.cos(y / (70 + 20 * c))
img += rng.normal(0, 4, img.shape)
img = np.clip(img, 0, 255).astype(np.uint8)
with open(sys.argv[1], "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h))
    f.write(img.tobytes())
PY
$py - "$w" "$runs" "$gpufilt" <<'PY'
import os, statistics, subprocess, sys, time
w, runs, gf = sys.argv[1], int(sys.argv[2]), sys.argv[3]
src = os.path.join(w, "in.ppm")
# ImageMagick's own binary, not a wrapper that PATH may put first
convert = "/usr/bin/convert" if os.path.exists("/usr/bin/convert") else "convert"

def out(tool, fmt):
    return os.path.join(w, f"{tool}-{fmt}")

# format: (gpufilt options, vips suffix, convert options, extension)
formats = {
    "TIFF deflate": ([], "[compression=deflate,predictor=horizontal]",
                     ["-compress", "zip", "-define", "tiff:predictor=2"], "tif"),
    "WebP q90": (["--quality", "90"], "[Q=90]", ["-quality", "90"], "webp"),
    "WebP lossless": (["--lossless"], "[lossless]",
                      ["-define", "webp:lossless=true"], "webp"),
}

def write_cmd(tool, fmt):
    g, v, c, ext = formats[fmt]
    dst = out(tool, fmt) + "." + ext
    if tool == "gpufilt":
        return [gf, src, "-o", dst, "--backend", "cpu", "-q", "--force"] + g
    if tool == "vips":
        return ["vips", "copy", src, dst + v]
    return [convert, src] + c + [dst]

def read_cmd(tool, fmt):
    ext = formats[fmt][3]
    f = out(tool, fmt) + "." + ext
    dst = out(tool, fmt) + "-back.ppm"
    if tool == "gpufilt":
        return [gf, f, "-o", dst, "--backend", "cpu", "-q", "--force"]
    if tool == "vips":
        return ["vips", "copy", f, dst]
    return [convert, f, dst]

def median_ms(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)

tools = ["gpufilt", "vips", "convert"]
print(f"4700x3128 RGB 8-bit, {os.cpu_count()} cores; process wall time, median of {runs}, ms")
print("| job | gpufilt | vips | convert | gpufilt / vips | gpufilt / convert | size gpufilt / vips / convert (MB) |")
print("|---|---|---|---|---|---|---|")
for fmt in formats:
    for what, mk in (("write", write_cmd), ("read", read_cmd)):
        t = {tool: median_ms(mk(tool, fmt)) for tool in tools}
        sizes = ""
        if what == "write":
            ext = formats[fmt][3]
            sizes = " / ".join(f"{os.path.getsize(out(tool, fmt) + '.' + ext) / 1e6:.2f}" for tool in tools)
        print(f"| {fmt} {what} | {t['gpufilt']:.0f} | {t['vips']:.0f} | {t['convert']:.0f} | "
              f"{t['gpufilt'] / t['vips']:.2f} | {t['gpufilt'] / t['convert']:.2f} | {sizes} |")
PY
