/* gf.h - gpufilt's shared types: images, error codes and the error record.
 *
 * Every function that can fail returns 0 or a negative GF_E* code and
 * records a message "FILE: reason" with gf_err(); only src/main.c exits.
 * The codes are the negated sysexits.h values that gpufilt exits with. */
#ifndef GF_H
#define GF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GF_VERSION "0.1.0"

enum {
    GF_OK = 0,
    GF_EUSAGE = -64,    /* EX_USAGE: bad options */
    GF_EDATA = -65,     /* EX_DATAERR: undecodable input, or over the limits */
    GF_ENOINPUT = -66,  /* EX_NOINPUT: input missing or unreadable */
    GF_ENOGPU = -69,    /* EX_UNAVAILABLE: GPU required but unavailable */
    GF_EINTERNAL = -70, /* EX_SOFTWARE: internal error, variant mismatch, CUDA error */
    GF_ECREATE = -73,   /* EX_CANTCREAT: cannot create the output */
    GF_EIO = -74,       /* EX_IOERR: error while writing */
};

/* An 8-bit single-channel image in host memory.
 * width x height pixels; stride = bytes from one row to the next (>= width);
 * pixel (x, y) is data[y * stride + x]. */
typedef struct gf_image {
    int width;
    int height;
    size_t stride;
    unsigned char *data;
} gf_image;

/* Allocates a width x height image with stride == width in host memory
 * (malloc). width, height >= 1. Returns 0, or GF_EINTERNAL when out of memory. */
int gf_image_alloc(gf_image *im, int width, int height);

/* Frees what gf_image_alloc allocated and zeroes *im; safe on a zeroed image. */
void gf_image_free(gf_image *im);

/* Records the message "WHERE: reason" for the calling thread (WHERE may be
 * NULL for a message with no file) and returns code, so callers can write
 * `return gf_err(GF_EDATA, path, "truncated file");`. */
int gf_err(int code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The calling thread's last recorded message (never NULL). */
const char *gf_errmsg(void);

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016): the next 32 random bits from *state, which
 * must not be 0. For test and benchmark inputs, not for anything secret. */
unsigned gf_rand(uint64_t *state);

/* Allocates *im (gf_image_alloc) as width x height random bytes from *state.
 * Returns 0, or GF_EINTERNAL when out of memory. */
int gf_image_random(gf_image *im, int width, int height, uint64_t *state);

/* Monotonic wall clock in milliseconds. */
double gf_now_ms(void);

#ifdef __cplusplus
}
#endif

#endif
