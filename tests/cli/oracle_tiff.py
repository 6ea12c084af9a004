#!/usr/bin/env python3
"""oracle_tiff.py GPUFILT [SEED [BACKEND]] - gpufilt's TIFF reading and
writing against writers and readers that are not gpufilt's:
- reading: fresh random numpy arrays of every layout (gray, gray+alpha, RGB,
  RGBA; 8 and 16 bits) at awkward sizes, written by tifffile as strips (a
  few rows each), tiles, planar (PlanarConfig 2) tiles, big-endian, Deflate
  with the predictor, MinIsWhite, 1-bit (MinIsBlack and MinIsWhite), palettes
  (8-bit colours and full 16-bit ones), associated alpha, several pages;
  made LZW (predictor 2) tiled, PackBits big-endian (planar where 8-bit) and JPEG (YCbCr
  and gray) by libtiff's tiffcp; 2- and 4-bit gray written here byte by byte.
  gpufilt decodes each to PAM, compared sample for sample with the array by
  tiff.c's rules (MinIsWhite inverted, low depths by bit replication,
  palettes through the colormap, associated alpha divided out as Pillow does
  it for 8-bit RGBA), with Pillow's own reading beside it where Pillow has the mode, and,
  for JPEG, Pillow's (libtiff's) decoding alone;
- writing: every layout written by gpufilt with each --compress, read back
  by tifffile (LZW and PackBits through tiffcp -c none first, as tifffile
  has no decoder of its own for them): the same samples, the Compression tag
  asked for, ExtraSamples (2,) with alpha, and tiffinfo -D reads it without a
  word on stderr;
- EXIF: fresh random JPEG, PNG and WebP images of each layout they hold,
  with EXIF written by Pillow (Make, Model, DateTimeOriginal in the EXIF IFD,
  a random Orientation), written as TIFF by gpufilt as they are, with
  --auto-orient and with --rotate 90: tifffile (its own reading of the tags
  and the EXIF IFD) and Pillow's getexif() (of the TIFFs it opens: not
  16-bit with alpha) read back the four values, the
  Orientation 1 after a turn; the pixels equal the input's as Pillow reads
  it (PNG, lossless WebP), turned by Pillow's ImageOps.exif_transpose for
  --auto-orient and by a quarter turn clockwise for --rotate 90.
Prints the seed (SEED, else GPUFILT_TEST_SEED, else a fresh one); a failure
names the flavour, layout and first difference, and exits 1. Run it with
Debian's python3 (numpy, tifffile, Pillow) and libtiff-tools."""
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import tifffile
from PIL import Image, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import check_image, oracle_start, read_pnm, run, run_all, write_pam  # noqa: E402

LAYOUTS = [(c, b) for b in (8, 16) for c in (1, 2, 3, 4)]
NAMES = {1: "gray", 2: "gray+alpha", 3: "RGB", 4: "RGBA"}
COMPRESS = {"none": 1, "lzw": 5, "deflate": 8, "packbits": 32773}


def photometric(ch):
    return "rgb" if ch >= 3 else "minisblack"


def tiff_write(path, a, **kw):
    """a (h x w x c) by tifffile; alpha as ExtraSamples 2 unless told."""
    ch = a.shape[2]
    kw.setdefault("photometric", photometric(ch))
    if ch in (2, 4):
        kw.setdefault("extrasamples", [2])
    data = a[:, :, 0] if ch == 1 else a
    if ch == 1:
        kw.pop("planarconfig", None)  # one sample: chunky and planar are the same
    elif kw.get("planarconfig") == "separate":
        data = np.ascontiguousarray(a.transpose(2, 0, 1))
    tifffile.imwrite(path, data, **kw)


def tiffcp(args):
    r = subprocess.run(["tiffcp"] + args, capture_output=True)
    if r.returncode:
        raise AssertionError("tiffcp %s: %s" % (" ".join(args), r.stderr.decode()))


def packed_gray(path, a, d, white):
    """A one-strip uncompressed TIFF of gray a (h x w) at d bits a sample,
    rows packed from the high bits, written here with struct alone."""
    h, w = a.shape
    rows = []
    for y in range(h):
        bits = "".join(format(int(v), "0%db" % d) for v in a[y])
        bits += "0" * (-len(bits) % 8)
        rows.append(bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)))
    data = b"".join(rows)
    tags = [(256, 4, w), (257, 4, h), (258, 3, d), (259, 3, 1), (262, 3, 0 if white else 1),
            (273, 4, 8), (277, 3, 1), (278, 4, h), (279, 4, len(data))]
    ifd_at = 8 + len(data) + (len(data) & 1)
    out = b"II*\0" + struct.pack("<I", ifd_at) + data + b"\0" * (len(data) & 1)
    out += struct.pack("<H", len(tags))
    for tag, typ, val in tags:
        out += struct.pack("<HHI", tag, typ, 1) + (struct.pack("<HH", val, 0) if typ == 3
                                                    else struct.pack("<I", val))
    out += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(out)


def unpremultiply(a, bits):
    """Pillow's RGBa (8-bit RGBA) at any depth and channels: floor(v * max / alpha), at most max; 0 where alpha
    is 0; as it is where alpha is max."""
    mx = (1 << bits) - 1
    al = a[:, :, -1:]
    col = np.where(al == 0, 0, np.minimum(a[:, :, :-1] * mx // np.maximum(al, 1), mx))
    col = np.where(al == mx, a[:, :, :-1], col)
    return np.concatenate([col, al], axis=2)


def write_png16(path, a, exif):
    """A 16-bit PNG of a (h x w x c, c 1-4) with an eXIf chunk, by hand
    (Pillow writes 16-bit PNGs of gray alone)."""
    h, w, ch = a.shape
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[ch]
    raw = b"".join(b"\0" + a[y].astype(">u2").tobytes() for y in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, ctype, 0, 0, 0)) +
                chunk(b"eXIf", exif[6:] if exif.startswith(b"Exif\0\0") else exif) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def pil_orient(a, orient):
    """a turned upright from EXIF Orientation orient, as Pillow's
    ImageOps.exif_transpose does (its Transpose methods in numpy)."""
    return {1: lambda x: x, 2: lambda x: x[:, ::-1], 3: lambda x: x[::-1, ::-1],
            4: lambda x: x[::-1], 5: lambda x: x.transpose(1, 0, 2),
            6: lambda x: np.rot90(x, -1), 7: lambda x: np.rot90(x, 2).transpose(1, 0, 2),
            8: lambda x: np.rot90(x, 1)}[orient](a)


def pillow(path, mode):
    return np.asarray(Image.open(path).convert(mode)).astype(np.int64)


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("oracle_tiff.py")
    sizes = [(1, 1), (7, 3), (33, 17), (70, 41)]
    jobs = []  # (input path, extra args, label, want, bits)

    def add(path, label, want, bits, args=()):
        jobs.append((path, list(args), label, want, bits))

    for ch, bits in LAYOUTS:
        mx = (1 << bits) - 1
        dt = np.uint16 if bits == 16 else np.uint8
        for w, h in sizes:
            a = rng.integers(0, mx + 1, size=(h, w, ch)).astype(dt)
            name = "%dx%d %s %d-bit" % (w, h, NAMES[ch], bits)
            base = os.path.join(tmp, "r-%d-%d-%dx%d" % (ch, bits, w, h))
            flavours = {
                "strips": dict(rowsperstrip=2),
                "tiles": dict(tile=(16, 32)),
                "planar tiles": dict(planarconfig="separate", tile=(16, 16)),
                "big-endian": dict(byteorder=">", rowsperstrip=3),
                "deflate predictor": dict(compression="zlib", predictor=True),
            }
            for i, (fl, kw) in enumerate(flavours.items()):
                p = "%s-%d.tif" % (base, i)
                tiff_write(p, a, **kw)
                add(p, "%s, tifffile %s" % (name, fl), a, bits)
            plain = base + "-plain.tif"
            tiff_write(plain, a)
            # (tiffcp makes planar from 8-bit samples only)
            sep = ["-p", "separate"] if bits == 8 and ch > 1 else []
            for fl, args in (("LZW:2 tiled", ["-c", "lzw:2", "-t", "-w", "16", "-l", "16"]),
                             ("PackBits big-endian" + (" planar" if sep else ""),
                              ["-c", "packbits", "-B", "-r", "5"] + sep)):
                p = "%s-%s.tif" % (base, fl.split()[0].replace(":", ""))
                tiffcp(args + [plain, p])
                add(p, "%s, tiffcp %s" % (name, fl), a, bits)
            if ch in (2, 4):  # associated alpha, divided out
                p = base + "-assoc.tif"
                tiff_write(p, a, extrasamples=[1])
                want = unpremultiply(a.astype(np.int64), bits)
                add(p, "%s, associated alpha" % name, want, bits)
                if ch == 4 and bits == 8:
                    check_image(name + " associated alpha: the rule against Pillow's",
                                pillow(p, "RGBA"), want)
            if ch == 1:  # MinIsWhite
                p = base + "-white.tif"
                tiff_write(p, a, photometric="miniswhite")
                add(p, "%s, MinIsWhite" % name, mx - a.astype(np.int64), bits)
                if bits == 8:
                    check_image(name + " MinIsWhite: the rule against Pillow's",
                                pillow(p, "L")[:, :, None], mx - a.astype(np.int64))
            if bits == 8 and ch in (1, 3) and w * h > 1:  # JPEG, against Pillow (libtiff)
                p = base + "-jpeg.tif"
                tiffcp(["-c", "jpeg:90", "-r", "16", plain, p])
                want = pillow(p, "RGB" if ch == 3 else "L").reshape(h, w, ch)
                add(p, "%s, tiffcp JPEG (Pillow's decoding)" % name, want, 8)

    # bilevel, 2- and 4-bit gray, palettes
    for w, h in sizes:
        for white in (0, 1):
            b = rng.integers(0, 2, size=(h, w)).astype(bool)
            p = os.path.join(tmp, "bi-%dx%d-%d.tif" % (w, h, white))
            tifffile.imwrite(p, b, photometric="miniswhite" if white else "minisblack")
            want = np.where(b ^ bool(white), 255, 0)[:, :, None]
            add(p, "%dx%d 1-bit %s" % (w, h, "MinIsWhite" if white else "MinIsBlack"), want, 8)
            check_image("1-bit: the rule against Pillow's", pillow(p, "L")[:, :, None], want)
            for d in (2, 4):
                g = rng.integers(0, 1 << d, size=(h, w))
                p = os.path.join(tmp, "g%d-%dx%d-%d.tif" % (d, w, h, white))
                packed_gray(p, g, d, white)
                v = g * (255 // ((1 << d) - 1))
                add(p, "%dx%d %d-bit gray%s" % (w, h, d, " MinIsWhite" if white else ""),
                    (255 - v if white else v)[:, :, None], 8)
        for wide in (0, 1):
            cmap = rng.integers(0, 65536, size=(3, 256)) if wide else \
                rng.integers(0, 256, size=(3, 256)) * 257
            idx = rng.integers(0, 256, size=(h, w)).astype(np.uint8)
            p = os.path.join(tmp, "pal-%dx%d-%d.tif" % (w, h, wide))
            tifffile.imwrite(p, idx, photometric="palette", colormap=cmap.astype(np.uint16))
            want = cmap[:, idx].transpose(1, 2, 0) // (1 if wide else 257)
            add(p, "%dx%d palette (%s colours)" % (w, h, "16-bit" if wide else "8-bit"), want,
                16 if wide else 8)
            if not wide:
                check_image("palette: the rule against Pillow's", pillow(p, "RGB"), want)

    # three pages, each its own layout: --page N reads page N
    pages = [rng.integers(0, 256, size=(5, 9, 1)).astype(np.uint8),
             rng.integers(0, 65536, size=(6, 4, 3)).astype(np.uint16),
             rng.integers(0, 256, size=(2, 3, 4)).astype(np.uint8)]
    multi = os.path.join(tmp, "pages.tif")
    with tifffile.TiffWriter(multi) as tw:
        for a in pages:
            ch = a.shape[2]
            tw.write(a[:, :, 0] if ch == 1 else a, photometric=photometric(ch),
                     extrasamples=[2] if ch == 4 else None)
    for i, a in enumerate(pages):
        add(multi, "page %d of 3" % i, a, 16 if a.dtype == np.uint16 else 8, ["--page", str(i)])

    def one(i):
        path, args, label, want, bits = jobs[i]
        out = os.path.join(tmp, "out-%d.pam" % i)
        rc, err = run(gpufilt, [path, "-o", out] + args, backend)
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err))
        got, gbits = read_pnm(out)
        if gbits != bits:
            raise AssertionError("%s: %d bits, want %d" % (label, gbits, bits))
        check_image(label, got, np.asarray(want, dtype=np.int64))

    run_all(one, len(jobs))

    # writing: every layout with each --compress, read back by tifffile
    written = []
    for ch, bits in LAYOUTS:
        for w, h in ((1, 1), (7, 3), (257, 131)):
            a = rng.integers(0, 1 << bits, size=(h, w, ch))
            inp = os.path.join(tmp, "w-%d-%d-%dx%d.pam" % (ch, bits, w, h))
            write_pam(inp, a, bits)
            for comp in COMPRESS:
                written.append((inp, a, ch, bits, comp, "%dx%d %s %d-bit --compress %s" % (
                    w, h, NAMES[ch], bits, comp)))

    def check_written(i):
        inp, a, ch, bits, comp, label = written[i]
        out = os.path.join(tmp, "w-%d.tif" % i)
        rc, err = run(gpufilt, [inp, "-o", out, "--compress", comp], backend)
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err))
        r = subprocess.run(["tiffinfo", "-D", out], capture_output=True)
        if r.returncode or r.stderr:
            raise AssertionError("%s: tiffinfo -D: %s" % (label, r.stderr.decode()))
        with tifffile.TiffFile(out) as t:
            pg = t.pages[0]
            if int(pg.compression) != COMPRESS[comp]:
                raise AssertionError("%s: Compression %d" % (label, int(pg.compression)))
            extra = tuple(int(e) for e in pg.extrasamples)
            if extra != ((2,) if ch in (2, 4) else ()):
                raise AssertionError("%s: ExtraSamples %s" % (label, extra))
            if pg.bitspersample != bits or pg.samplesperpixel != ch or \
                    int(pg.photometric) != (2 if ch >= 3 else 1):
                raise AssertionError("%s: %d bits, %d samples, photometric %d" % (
                    label, pg.bitspersample, pg.samplesperpixel, int(pg.photometric)))
        plain = out
        if comp in ("lzw", "packbits"):
            plain = out + ".plain.tif"
            tiffcp(["-c", "none", out, plain])
        got = tifffile.imread(plain).astype(np.int64).reshape(a.shape)
        check_image(label, got, a)

    run_all(check_written, len(written))

    # EXIF into TIFF: inputs that Pillow writes with EXIF, of every layout each holds
    exif_cases = []
    kinds = [("png", ch, bits) for ch in (1, 2, 3, 4) for bits in (8, 16)] + \
        [("webp", ch, 8) for ch in (3, 4)] + [("jpg", ch, 8) for ch in (1, 3)]
    for i, (ext, ch, bits) in enumerate(kinds * 3):
        w, h = int(rng.integers(1, 60)), int(rng.integers(1, 60))
        a = rng.integers(0, 1 << bits, size=(h, w, ch))
        tags = ("Make%d" % rng.integers(1 << 30), "Model %d" % rng.integers(1 << 30),
                "%04d:%02d:%02d %02d:%02d:%02d" % (rng.integers(1990, 2040), rng.integers(1, 13),
                                                   rng.integers(1, 29), rng.integers(0, 24),
                                                   rng.integers(0, 60), rng.integers(0, 60)),
                int(rng.integers(1, 9)))
        stage = ([], ["--auto-orient"], ["--rotate", "90"])[i // len(kinds)]
        exif_cases.append((ext, ch, bits, a, tags, stage))

    def check_exif(i):
        ext, ch, bits, a, (make, model, when, orient), stage = exif_cases[i]
        label = "EXIF: %dx%d %s %d-bit %s, Orientation %d, %s" % (
            a.shape[1], a.shape[0], NAMES[ch], bits, ext, orient, " ".join(stage) or "no stage")
        inp = os.path.join(tmp, "exif-%d.%s" % (i, ext))
        out = os.path.join(tmp, "exif-%d.tif" % i)
        e = Image.Exif()
        e[271], e[272], e[274] = make, model, orient
        e[0x8769] = {36867: when}
        mode = {(1, 8): "L", (2, 8): "LA", (3, 8): "RGB", (4, 8): "RGBA"}.get((ch, bits))
        if bits == 16:  # Pillow writes 16-bit PNGs of one channel only: tifffile's PNG-free path
            im = None
            write_png16(inp, a, e.tobytes())
        else:
            im = Image.fromarray(a.astype(np.uint8)[:, :, 0] if ch == 1 else a.astype(np.uint8), mode)
            im.save(inp, exif=e.tobytes(), **({"lossless": True} if ext == "webp" else {}))
        rc, err = run(gpufilt, [inp, "-o", out] + stage, backend)
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err))
        want_orient = orient if not stage else 1
        with tifffile.TiffFile(out) as t:
            pg = t.pages[0]
            got = (pg.tags["Make"].value, pg.tags["Model"].value,
                   pg.tags["ExifTag"].value.get("DateTimeOriginal"), pg.tags["Orientation"].value)
        if got != (make, model, when, want_orient):
            raise AssertionError("%s: tifffile reads %s" % (label, got))
        if (ch, bits) not in ((2, 16), (4, 16)):  # TIFFs Pillow 9.4 opens
            ex = Image.open(out).getexif()
            got = (ex.get(271), ex.get(272), ex.get_ifd(0x8769).get(36867), ex.get(274))
            if got != (make, model, when, want_orient):
                raise AssertionError("%s: Pillow reads %s" % (label, got))
        if ext == "jpg":
            return  # JPEG's pixels: jpeg.bats and the orientation tests
        src = Image.open(inp) if im is not None else None
        if stage == ["--auto-orient"] and src is not None:
            want = np.asarray(ImageOps.exif_transpose(src)).astype(np.int64)
        else:
            want = a if src is None else np.asarray(src).astype(np.int64)
            if stage == ["--rotate", "90"]:
                want = np.rot90(want.reshape(want.shape[0], want.shape[1], -1), -1)
            elif stage:  # 16-bit PNG, --auto-orient: Pillow has no 16-bit colour to turn
                want = pil_orient(want.reshape(want.shape[0], want.shape[1], -1), orient)
        got = tifffile.imread(out).astype(np.int64)
        check_image(label, got.reshape(got.shape[0], got.shape[1], -1),
                    want.reshape(want.shape[0], want.shape[1], -1))

    run_all(check_exif, len(exif_cases))
    print("oracle_tiff.py: %d TIFF flavours read, %d written and read back, %d with EXIF, checks "
          "passed" % (len(jobs), len(written), len(exif_cases)))


if __name__ == "__main__":
    main()
