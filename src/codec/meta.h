/* meta.h - ICC profiles and EXIF (internal to src/codec/, the bottom layer
 * beside common.h): the checks a blob passes before it is kept (gf_meta,
 * codec.h), and the EXIF Orientation tag read and rewritten. Every function
 * reads and writes only within the n bytes it is given. */
#ifndef GF_CODEC_META_H
#define GF_CODEC_META_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"

/* The Orientation (tag 274, SHORT, count 1) of IFD0 of the TIFF structure
 * t (n bytes: "II*\0" or "MM\0*" ...): 1-8, or 0 when there is none, it is
 * out of range, or the structure is malformed (cut short, offsets past its
 * end). */
int gf_exif_orientation(const unsigned char *t, size_t n);

/* Rewrites that Orientation tag's value to v (1-8) in place, in t's byte
 * order. Returns 1 when it did, 0 when t has no such tag (t unchanged). */
int gf_exif_set_orientation(unsigned char *t, size_t n, int v);

/* NULL when the EXIF t (n bytes) may be kept: n <= GF_MAX_EXIF_BYTES, a
 * TIFF header ("II*\0" or "MM\0*"), and IFD0 and the EXIF and GPS IFDs
 * its pointers name within it, with every value of theirs within it too
 * (gf_exif_parse); else why not, in words. */
const char *gf_exif_check(const unsigned char *t, size_t n);

/* TIFF field types (TIFF 6.0, BigTIFF's 16-18). */
enum {
    GF_TIFF_BYTE = 1, GF_TIFF_ASCII, GF_TIFF_SHORT, GF_TIFF_LONG, GF_TIFF_RATIONAL,
    GF_TIFF_SBYTE, GF_TIFF_UNDEFINED, GF_TIFF_SSHORT, GF_TIFF_SLONG, GF_TIFF_SRATIONAL,
    GF_TIFF_FLOAT, GF_TIFF_DOUBLE, GF_TIFF_IFD, GF_TIFF_LONG8 = 16, GF_TIFF_SLONG8, GF_TIFF_IFD8,
};

/* Tags of EXIF's structure: the EXIF, GPS and Interoperability IFD
 * pointers, and Orientation. */
#define GF_TAG_ORIENTATION 0x0112
#define GF_TAG_EXIF_IFD 0x8769
#define GF_TAG_GPS_IFD 0x8825
#define GF_TAG_INTEROP_IFD 0xa005

/* One entry of an IFD: its tag, type (GF_TIFF_*, or another number, whose
 * size is unknown), count, and value: count x gf_tiff_type_size(type)
 * bytes in the byte order of the structure it lies in, or NULL where that
 * lies outside it or the type is unknown. */
typedef struct gf_ifd_entry {
    uint16_t tag, type;
    uint64_t count;
    const unsigned char *value;
} gf_ifd_entry;

/* The bytes of one value of TIFF type `type`: 1, 2, 4 or 8; 0 for a type
 * not known. */
size_t gf_tiff_type_size(unsigned type);

/* Reads the IFD at offset off of the TIFF structure t (n bytes; byte order
 * le: 1 little-endian; big: BigTIFF's 8-byte counts and offsets) into e[]
 * (at most max entries), values pointing into t. Returns the number of
 * entries, or -1 with *why set when the entry table does not lie within t
 * or has more than max entries. */
int gf_ifd_read(const unsigned char *t, size_t n, uint64_t off, int le, int big,
                gf_ifd_entry *e, int max, const char **why);

/* Value i (< count) of entry e, in byte order le: as an integer (BYTE to
 * SLONG8, IFD; the numerator of a rational) or as a real number (any
 * numeric type; a rational as numerator / denominator, 0 over 0). */
int64_t gf_ifd_int(const gf_ifd_entry *e, uint64_t i, int le);
double gf_ifd_real(const gf_ifd_entry *e, uint64_t i, int le);

/* The most entries gf_exif_parse keeps of one IFD; more is malformed. */
#define GF_EXIF_MAX_ENTRIES 512

/* An EXIF's directories: IFD0's entries (without the EXIF and GPS
 * pointers), the EXIF IFD's (without the Interoperability pointer) and
 * the GPS IFD's, in the order they lie, values pointing into the blob they
 * came from; le its byte order. IFD1 (a thumbnail) is not kept. */
enum { GF_EXIF_IFD0, GF_EXIF_EXIF, GF_EXIF_GPS, GF_EXIF_DIRS };
typedef struct gf_exif_dirs {
    int le;
    int n[GF_EXIF_DIRS];
    gf_ifd_entry e[GF_EXIF_DIRS][GF_EXIF_MAX_ENTRIES];
} gf_exif_dirs;

/* Parses the EXIF t (n bytes, a TIFF header first) into *d: NULL, or why
 * it is malformed (the header, a directory or a value of a known type not
 * within it, a pointer that is not one LONG or IFD, more than
 * GF_EXIF_MAX_ENTRIES entries in a directory). */
const char *gf_exif_parse(const unsigned char *t, size_t n, gf_exif_dirs *d);

/* 1 when an IFD0 tag describes the picture rather than how it is stored,
 * so that a TIFF's IFD0 and EXIF's share it: EXIF 2.3's IFD0 tags
 * ImageDescription, Make, Model, Orientation, XResolution, YResolution,
 * ResolutionUnit, Software, DateTime, Artist, HostComputer, WhitePoint,
 * PrimaryChromaticities and Copyright, and the EXIF IFD's own tags
 * (0x829a-0x88ff but GPS's pointer, 0x9000-0x9fff but Photoshop's 0x935c,
 * 0xa000-0xa4ff but the Interoperability pointer), which some writers put
 * in IFD0. */
int gf_exif_ifd0_tag(unsigned tag);

/* The EXIF of a TIFF file t (n bytes, byte order le, BigTIFF when big)
 * from its image directory's entries ifd0[0, k) (gf_ifd_read): those
 * gf_exif_ifd0_tag takes, and the EXIF and GPS IFDs its pointers name,
 * into *d (values pointing into t). d->n stays all 0 when the directory
 * has no EXIF or GPS IFD and none of Make, Model, DateTime, Artist,
 * Copyright, Orientation or the EXIF IFD's tags (so a TIFF with only what
 * writers add to every file, Software or tifffile's ImageDescription,
 * gives none). NULL, or why the EXIF is
 * malformed (a pointer of another type, a directory or a value outside
 * t). */
const char *gf_exif_from_tiff(const unsigned char *t, size_t n, int le, int big,
                              const gf_ifd_entry *ifd0, int k, gf_exif_dirs *d);

/* An EXIF blob of d's entries, in d->le's byte order: a TIFF header, IFD0
 * (with pointers to the EXIF and GPS IFDs where those have entries), then
 * the EXIF IFD and the GPS IFD, each directory's entries in ascending tag
 * order (the first of a repeated tag kept), values of more than 4 bytes
 * after their directory on even offsets; entries of an unknown type,
 * BigTIFF's 8-byte types or more than 2^32 - 1 values left out. Returns the malloc'd blob of *n
 * bytes, or NULL out of memory. */
unsigned char *gf_exif_build(const gf_exif_dirs *d, size_t *n);

/* NULL when the ICC profile p (n bytes) may be kept: n <= GF_MAX_ICC_BYTES,
 * at least its 128-byte header, whose size field (bytes 0-3, big-endian)
 * is n and with "acsp" at offset 36; else why not, in words. */
const char *gf_icc_check(const unsigned char *p, size_t n);

/* The checks above, then a copy into m->icc (m->exif): 0 with the copy
 * kept (any earlier one freed), or 0 with nothing kept and the warning
 * "gpufilt: NAME: ICC profile dropped: REASON" ("EXIF dropped") on stderr
 * (name NULL: "input"); GF_EINTERNAL out of memory. An EXIF that starts
 * "Exif\0\0" (as some PNG and WebP writers leave it) loses those 6 bytes. */
int gf_meta_keep_icc(gf_meta *m, const char *name, const unsigned char *p, size_t n);
int gf_meta_keep_exif(gf_meta *m, const char *name, const unsigned char *p, size_t n);

/* gf_exif_orientation of an EXIF blob as a container holds it (a leading
 * "Exif\0\0" skipped), mapped to 1 when there is none. */
int gf_exif_orientation_or_1(const unsigned char *t, size_t n);

/* Drops, with the warning "gpufilt: NAME: ICC profile dropped: a SPACE
 * profile on a gray (RGB) image", an ICC profile of m whose colour space
 * does not suit the image it came with, as decoded (`channels`: GRAY for 1
 * or 2, RGB for 3 or 4): the file contradicts itself. */
void gf_meta_fit(gf_meta *m, const char *name, int channels);

/* 1 when m holds an ICC profile of the GRAY colour space. */
int gf_meta_gray(const gf_meta *m);

/* Prints "gpufilt: NAME: WHAT" and a newline on stderr (name NULL: "input"). */
void gf_meta_warn(const char *name, const char *what);

#endif
