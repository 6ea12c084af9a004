"""pgm.py - reading and writing binary PGM and PPM (P5, P6; maxval 255) for the
Python helpers of the benchmarks and the tests."""


def read_pnm(path):
    """(width, height, channels, pixels as bytes) of a P5 or P6 file with
    maxval 255."""
    data = open(path, "rb").read()
    fields, pos = [], 2
    assert data[:2] in (b"P5", b"P6"), path
    while len(fields) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while data[pos:pos + 1].isdigit():
            pos += 1
        fields.append(int(data[start:pos]))
    w, h, maxval = fields
    assert maxval == 255, path
    c = 3 if data[:2] == b"P6" else 1
    return w, h, c, data[pos + 1:pos + 1 + w * h * c]


def read_pgm(path):
    """(width, height, pixels as bytes) of a P5 file with maxval 255."""
    w, h, c, pix = read_pnm(path)
    assert c == 1, path
    return w, h, pix


def write_pgm(path, w, h, pix):
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + bytes(pix))
