/* meta.h - ICC profiles and EXIF (internal to src/codec/, the bottom layer
 * beside common.h): the checks a blob passes before it is kept (gf_meta,
 * codec.h), and the EXIF Orientation tag read and rewritten. Every function
 * reads and writes only within the n bytes it is given. */
#ifndef GF_CODEC_META_H
#define GF_CODEC_META_H

#include <stddef.h>

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
 * TIFF header ("II*\0" or "MM\0*") and IFD0 within it; else why not, in
 * words. */
const char *gf_exif_check(const unsigned char *t, size_t n);

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

/* Prints "gpufilt: NAME: WHAT" and a newline on stderr (name NULL: "input"). */
void gf_meta_warn(const char *name, const char *what);

#endif
