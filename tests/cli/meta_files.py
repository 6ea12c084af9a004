#!/usr/bin/env python3
"""meta_files.py DIR [SEED] - writes, into DIR, image files of every format that
carries metadata (PNG, JPEG, TIFF, WebP, BMP) whose ICC profile or EXIF
block is malformed or over its limit, the image itself sound; and prints,
one line each, "FILE<TAB>WARNING": the one line gpufilt must say on stderr
while it drops that block and writes the image (exit 0). The images are
random pixels (drawn from SEED, else fresh; Pillow writes them); the broken
blocks are made here, by hand where no library would write them: raw PNG
chunks, JPEG segments, TIFF tags patched in place (a 2 GB ICC count), WebP
RIFF chunks, a BITMAPV5HEADER. Run it with Debian's python3 (numpy, Pillow, tifffile)."""
import io
import os
import struct
import sys
import zlib

import numpy as np
import tifffile
from PIL import Image

RNG = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else None)


def icc(n=1200, delta=0, space=b"RGB ", sig=b"acsp"):
    """A random ICC profile of n bytes: a valid header (its size field off by
    delta, signature sig) and random bytes."""
    p = bytearray(RNG.integers(0, 256, n, dtype=np.uint8).tobytes())
    p[0:4] = struct.pack(">I", n + delta)
    p[4:128] = bytes(124)
    p[12:16], p[16:20], p[20:24], p[36:40] = b"mntr", space, b"XYZ ", sig
    return bytes(p)


def exif_ifd0(le=True, pointer=None, count_past=False):
    """A small EXIF: IFD0 with Make and Orientation, and an EXIF IFD pointer
    (to `pointer`, default: a sound one-entry EXIF IFD); count_past: the EXIF
    IFD claims more entries than the blob holds."""
    e = "<" if le else ">"
    make = b"Canon\0"
    ifd0_at, n0 = 8, 3
    exif_at = ifd0_at + 2 + 12 * n0 + 4
    make_at = exif_at + 2 + 12 + 4
    out = (b"II*\0" if le else b"MM\0*") + struct.pack(e + "I", ifd0_at)
    out += struct.pack(e + "H", n0)
    out += struct.pack(e + "HHII", 0x010F, 2, len(make), make_at)
    out += struct.pack(e + "HHIHH", 0x0112, 3, 1, 6, 0)
    out += struct.pack(e + "HHII", 0x8769, 4, 1, exif_at if pointer is None else pointer)
    out += struct.pack(e + "I", 0)
    out += struct.pack(e + "H", 200 if count_past else 1)
    out += struct.pack(e + "HHI4s", 0x9000, 7, 4, b"0232")
    out += struct.pack(e + "I", 0)
    return out + make


def pixels(w=24, h=17, ch=3):
    return RNG.integers(0, 256, (h, w, ch), dtype=np.uint8)


def png_bytes(a):
    b = io.BytesIO()
    Image.fromarray(a).save(b, "PNG")
    return b.getvalue()


def chunk(t, d, crc=None):
    c = zlib.crc32(t + d) & 0xFFFFFFFF if crc is None else crc
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", c)


def png_with(before=(), after=()):
    """A random PNG with chunks put after IHDR (before) and before IEND (after)."""
    p = png_bytes(pixels())
    ihdr_end = 8 + 25
    return p[:ihdr_end] + b"".join(before) + p[ihdr_end:-12] + b"".join(after) + p[-12:]


def iccp(profile, name=b"ICC Profile", method=0, level=9):
    return chunk(b"iCCP", name + b"\0" + bytes([method]) + zlib.compress(profile, level))


def jpeg_with(segments):
    """A random JPEG with the given APPn segments (marker, payload) after SOI."""
    b = io.BytesIO()
    Image.fromarray(pixels()).save(b, "JPEG", quality=90)
    j = b.getvalue()
    segs = b"".join(b"\xff" + bytes([m]) + struct.pack(">H", len(d) + 2) + d for m, d in segments)
    return j[:2] + segs + j[2:]


def tiff_with(path, extratags=(), patch=None):
    """A random RGB TIFF by tifffile with extra tags; patch(bytes, tags) may
    change its bytes in place."""
    tifffile.imwrite(path, pixels(), photometric="rgb", extratags=list(extratags))
    if patch:
        d = bytearray(open(path, "rb").read())
        with tifffile.TiffFile(path) as t:
            tags = {k: (v.offset, v.valueoffset) for k, v in t.pages[0].tags.items()}
        patch(d, tags)
        open(path, "wb").write(d)


def webp_with(chunks, icc_flag=False, exif_flag=False):
    """A lossless random WebP turned extended (VP8X) with extra RIFF chunks:
    (fourcc, payload, declared size or None) after the image."""
    b = io.BytesIO()
    a = pixels()
    Image.fromarray(a).save(b, "WEBP", lossless=True)
    d = b.getvalue()
    body = d[12:]
    w, h = a.shape[1], a.shape[0]
    flags = (0x20 if icc_flag else 0) | (0x08 if exif_flag else 0)
    vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([flags, 0, 0, 0]) + \
        (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little")
    extra = b""
    for fourcc, payload, size in chunks:
        n = len(payload) if size is None else size
        extra += fourcc + struct.pack("<I", n) + payload + (b"\0" if len(payload) % 2 else b"")
    riff = b"WEBP" + vp8x + body + extra
    return b"RIFF" + struct.pack("<I", len(riff)) + riff


def bmp_v5(profile, cstype=0x4D424544, size_delta=0):
    """A random 24-bit BMP with a BITMAPV5HEADER whose profile (embedded or
    linked) follows the pixels."""
    w, h = 7, 5
    row = (w * 3 + 3) // 4 * 4
    px = RNG.integers(0, 256, row * h, dtype=np.uint8).tobytes()
    hdr = struct.pack("<IiiHHIIiiII", 124, w, h, 1, 24, 0, len(px), 2835, 2835, 0, 0)
    hdr += bytes(16) + struct.pack("<I", cstype) + bytes(36 + 12)
    hdr += struct.pack("<IIII", 4, 124 + len(px), len(profile) + size_delta, 0)
    size = 14 + len(hdr) + len(px) + len(profile)
    return b"BM" + struct.pack("<IHHI", size, 0, 0, 14 + 124) + hdr + px + profile


def main():
    d = sys.argv[1]
    cases = []

    def out(name, data, warning):
        p = os.path.join(d, name)
        if data is not None:
            open(p, "wb").write(data)
        cases.append((name, warning))

    ICC, EXIF = "ICC profile dropped: ", "EXIF dropped: "
    # PNG
    good = icc()
    out("png-icc-size.png", png_with([iccp(icc(delta=5))]),
        ICC + "its header's size disagrees with its length")
    out("png-icc-crc.png", png_with([iccp(good)[:-4] + b"\0\0\0\0"]),
        ICC + "its iCCP chunk's CRC is wrong")
    out("png-icc-zlib.png", png_with([chunk(b"iCCP", b"ICC\0\0" + b"not zlib at all")]),
        ICC + "its iCCP chunk does not inflate (zlib)")
    out("png-icc-name.png", png_with([iccp(good, name=b" bad name")]),
        ICC + "its iCCP chunk's profile name is malformed")
    out("png-icc-method.png", png_with([iccp(good, method=1)]),
        ICC + "its iCCP chunk's compression method is not 0 (zlib)")
    # 17 MiB of profile: over the limit once inflated, small in the file
    big = bytearray(17 << 20)  # zeros after a sound header: small once compressed
    big[0:128] = icc(128)
    big[0:4] = struct.pack(">I", len(big))
    out("png-icc-large.png", png_with([iccp(bytes(big), level=1)]), ICC + "larger than 16 MiB")
    out("png-icc-second.png", png_with([iccp(good), iccp(good)]), ICC + "a second iCCP chunk")
    out("png-icc-late.png", png_with(after=[iccp(good)]),
        ICC + "its iCCP chunk comes after PLTE or IDAT")
    out("png-exif-header.png", png_with([chunk(b"eXIf", b"garbage, no TIFF header")]),
        EXIF + "no valid TIFF header")
    out("png-exif-large.png", png_with([chunk(b"eXIf", exif_ifd0() + bytes(70000))]),
        EXIF + "larger than 65527 bytes")
    out("png-exif-ifd.png", png_with([chunk(b"eXIf", exif_ifd0(pointer=60000))]),
        EXIF + "a directory lies outside it")
    out("png-exif-crc.png", png_with(after=[chunk(b"eXIf", exif_ifd0(), crc=0)]),
        EXIF + "its eXIf chunk's CRC is wrong")
    # JPEG
    def app2(i, n, data):
        return (0xE2, b"ICC_PROFILE\0" + bytes([i, n]) + data)
    p = icc(3000)
    out("jpeg-icc-size.jpg", jpeg_with([app2(1, 1, icc(delta=-3))]),
        ICC + "its header's size disagrees with its length")
    out("jpeg-icc-numbers.jpg", jpeg_with([app2(1, 2, p[:1500]), app2(3, 2, p[1500:])]),
        ICC + "its APP2 segments are misnumbered")
    out("jpeg-icc-missing.jpg", jpeg_with([app2(1, 2, p[:1500])]),
        ICC + "some of its APP2 segments are missing")
    out("jpeg-icc-short.jpg", jpeg_with([(0xE2, b"ICC_PROFILE\0\1")]),
        ICC + "an APP2 segment is cut short")
    out("jpeg-icc-sig.jpg", jpeg_with([app2(1, 1, icc(sig=b"xxxx"))]),
        ICC + "no \"acsp\" signature")
    out("jpeg-exif-header.jpg", jpeg_with([(0xE1, b"Exif\0\0" + b"MX\0*garbage")]),
        EXIF + "no valid TIFF header")
    out("jpeg-exif-ifd.jpg", jpeg_with([(0xE1, b"Exif\0\0" + exif_ifd0(le=False, count_past=True))]),
        EXIF + "a directory runs past its end")
    # TIFF
    def count(tag, value):
        def patch(b, tags):
            at = tags[tag][0]
            b[at + 4:at + 8] = struct.pack("<I", value)
        return patch

    def offset(tag, value):
        def patch(b, tags):
            at = tags[tag][0]
            b[at + 8:at + 12] = struct.pack("<I", value)
        return patch
    tiff_with(os.path.join(d, "tiff-icc-2gb.tif"), [(34675, 7, len(good), good, True)],
              count(34675, 2_000_000_000))
    out("tiff-icc-2gb.tif", None, ICC + "its tag claims 2000000000 bytes, more than 16 MiB")
    tiff_with(os.path.join(d, "tiff-icc-past.tif"), [(34675, 7, len(good), good, True)],
              offset(34675, 10_000_000))
    out("tiff-icc-past.tif", None, ICC + "its 1200 bytes lie past the end of the file")
    tiff_with(os.path.join(d, "tiff-icc-size.tif"), [(34675, 7, 1200, icc(delta=9), True)])
    out("tiff-icc-size.tif", None, ICC + "its header's size disagrees with its length")
    tiff_with(os.path.join(d, "tiff-icc-type.tif"), [(34675, 3, 600, good, True)])
    out("tiff-icc-type.tif", None, ICC + "its tag is of type 3, not bytes")
    tiff_with(os.path.join(d, "tiff-exif-ifd.tif"), [(271, 2, 0, "Canon", True),
                                                     (34665, 4, 1, 10_000_000, True)])
    out("tiff-exif-ifd.tif", None, EXIF + "a directory lies outside it")
    # WebP
    out("webp-icc-size.webp", webp_with([(b"ICCP", icc(delta=3), None)], icc_flag=True),
        ICC + "its header's size disagrees with its length")
    out("webp-exif-header.webp", webp_with([(b"EXIF", b"garbage exif", None)], exif_flag=True),
        EXIF + "no valid TIFF header")
    out("webp-exif-past.webp", webp_with([(b"EXIF", exif_ifd0(), 5000)], exif_flag=True),
        EXIF + "its EXIF chunk runs past the end of the file")
    out("webp-icc-second.webp",
        webp_with([(b"ICCP", good, None), (b"ICCP", good, None)], icc_flag=True),
        ICC + "a second ICCP chunk")
    # BMP
    out("bmp-icc-size.bmp", bmp_v5(icc(delta=7)), ICC + "its header's size disagrees with its length")
    out("bmp-icc-past.bmp", bmp_v5(good, size_delta=4000),
        ICC + "its 5200 bytes lie past the end of the file")
    out("bmp-icc-linked.bmp", bmp_v5(b"C:\\profile.icc\0", cstype=0x4C494E4B),
        ICC + "the BMP links to a profile's file, which is not read")
    for name, warning in cases:
        print("%s\t%s" % (name, warning))


if __name__ == "__main__":
    main()
