/* gf.h - gpufilt's shared types: images, error codes and the error record.
 *
 * Every function that can fail returns 0 or a negative GF_E* code and
 * records a message "FILE: reason" with gf_err(); only src/main.c exits.
 * The codes are the negated sysexits.h values that gpufilt exits with. */
#ifndef GF_H
#define GF_H

#include <stddef.h>
#include <stdint.h>
#include <sysexits.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a CPU fast path to be compiled for x86-64-v4 (AVX-512), AVX2 and baseline x86-64,
 * the one to run chosen when the program loads (GCC's target_clones). Not
 * under ThreadSanitizer, whose instrumented resolvers would run before its
 * runtime starts. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__) && \
    !defined(__SANITIZE_THREAD__)
#define GF_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GF_CLONES
#endif

/* A loop GCC's -O2 leaves scalar (its cheapest cost model refuses loops
 * that need a scalar epilogue) vectorised as at -O3. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define GF_VECTORIZE __attribute__((optimize("O3")))
#else
#define GF_VECTORIZE
#endif

/* 1 where the x86 vector paths are compiled: GCC or Clang on x86-64, their
 * intrinsics in functions of their own target (GF_AVX2_FN: AVX2 and FMA;
 * GF_AVX512_FN: AVX-512 F, BW, DQ, VL and FMA), each run only where
 * gf_cpu_avx2() or gf_cpu_avx512() says the CPU has them. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__CUDACC__)
#define GF_X86 1
#define GF_AVX2_FN __attribute__((target("avx2,fma")))
#define GF_AVX512_FN __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma")))
#else
#define GF_X86 0
#endif

#define GF_VERSION "0.2.0"

enum {
    GF_OK = 0,
    GF_EUSAGE = -EX_USAGE,          /* 64: bad options */
    GF_EDATA = -EX_DATAERR,         /* 65: undecodable input, or over the limits */
    GF_ENOINPUT = -EX_NOINPUT,      /* 66: input missing or unreadable */
    GF_ENOGPU = -EX_UNAVAILABLE,    /* 69: GPU required but unavailable */
    GF_EINTERNAL = -EX_SOFTWARE,    /* 70: internal error, variant mismatch, CUDA error */
    GF_ECREATE = -EX_CANTCREAT,     /* 73: cannot create the output */
    GF_EIO = -EX_IOERR,             /* 74: error while writing */
};

/* Layouts: an image's pixels are `channels` interleaved samples (1 gray,
 * 2 gray+alpha, 3 RGB, 4 RGBA) of `bits` each (8: uint8; 16: uint16 in the
 * host's byte order). Named as NPP names them: 8u_C1 .. 8u_C4, 16u_C1 ..
 * 16u_C4. */
#define GF_MAX_CHANNELS 4

/* The bit of layout (channels, bits) in a set of layouts: a stage's
 * gf_stage_ops.layouts. */
#define GF_LAYOUT_BIT(channels, bits) (1u << ((channels) - 1 + ((bits) == 16 ? 4 : 0)))
#define GF_LAYOUTS_ALL 0xffu
#define GF_LAYOUTS_GRAY (GF_LAYOUT_BIT(1, 8) | GF_LAYOUT_BIT(1, 16))

/* Bytes of one pixel of a layout. */
#define GF_PIXEL_BYTES(channels, bits) ((size_t)(channels) * (size_t)(bits) / 8)

/* An image's size and layout, without its pixels. */
typedef struct gf_shape {
    int width;
    int height;
    int channels; /* 1..4 */
    int bits;     /* 8 or 16 */
} gf_shape;

/* An image in host memory: width x height pixels of the layout above;
 * stride = bytes from one row to the next (>= width * pixel bytes). Sample c
 * of pixel (x, y) starts at byte y * stride + (x * channels + c) * bits / 8. */
typedef struct gf_image {
    int width;
    int height;
    int channels;
    int bits;
    size_t stride;
    unsigned char *data;
} gf_image;

/* im's shape. */
static inline gf_shape gf_image_shape(const gf_image *im)
{
    gf_shape s = {im->width, im->height, im->channels, im->bits};
    return s;
}

/* Sample c of pixel (x, y) of im, and setting it (host memory). */
static inline unsigned gf_sample(const gf_image *im, int x, int y, int c)
{
    const unsigned char *row = im->data + (size_t)y * im->stride;
    const size_t i = (size_t)x * (size_t)im->channels + (size_t)c;
    return im->bits == 8 ? row[i] : ((const uint16_t *)(const void *)row)[i];
}

static inline void gf_sample_set(gf_image *im, int x, int y, int c, unsigned v)
{
    unsigned char *row = im->data + (size_t)y * im->stride;
    const size_t i = (size_t)x * (size_t)im->channels + (size_t)c;
    if (im->bits == 8)
        row[i] = (unsigned char)v;
    else
        ((uint16_t *)(void *)row)[i] = (uint16_t)v;
}

/* The largest sample of a depth: 255 or 65535. */
static inline unsigned gf_sample_max(int bits)
{
    return bits == 8 ? 255u : 65535u;
}

/* 1 when channels is 1..4 and bits 8 or 16. */
static inline int gf_layout_valid(int channels, int bits)
{
    return channels >= 1 && channels <= GF_MAX_CHANNELS && (bits == 8 || bits == 16);
}

/* The layout's name as NPP writes it ("8u_C3"), and in words ("RGB
 * 8-bit"); static strings, "?" for an invalid layout. */
const char *gf_layout_name(int channels, int bits);
const char *gf_layout_words(int channels, int bits);

/* The name of channel c (0-based) of an image of `channels` channels, as
 * reports title it: "gray"; "gray", "alpha"; "red", "green", "blue";
 * "red", "green", "blue", "alpha". */
const char *gf_channel_name(int channels, int c);

/* Allocates a width x height image of the layout (channels, bits) with
 * stride == width * pixel bytes in host memory (malloc). width, height >= 1.
 * Returns 0, or GF_EINTERNAL for a bad layout or when out of memory. */
int gf_image_alloc(gf_image *im, int width, int height, int channels, int bits);

/* gf_image_alloc at shape s. */
int gf_image_alloc_shape(gf_image *im, const gf_shape *s);

/* When 0..255, every image gf_image_alloc returns is filled with this byte
 * first: tests set it to poison outputs, so that a path that leaves a pixel
 * unwritten fails. -1 (the default): not filled. */
extern int gf_alloc_poison;

/* Frees what gf_image_alloc allocated and zeroes *im; safe on a zeroed image. */
void gf_image_free(gf_image *im);

/* Records the message "WHERE: reason" for the calling thread (WHERE may be
 * NULL for a message with no file) and returns code, so callers can write
 * `return gf_err(GF_EDATA, path, "truncated file");`. */
int gf_err(int code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The calling thread's last recorded message (never NULL). Messages longer
 * than GF_ERRMSG_MAX bytes are cut, ending in "...". */
const char *gf_errmsg(void);
#define GF_ERRMSG_MAX 8192

/* Parses s, a whole decimal number in [lo, hi] (no sign, no spaces, no
 * trailing characters), into *v. Returns 0, or GF_EUSAGE with the message
 * "OPT: 'S' is not a number in LO..HI". */
int gf_parse_int(const char *opt, const char *s, int lo, int hi, int *v);
int gf_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v);

/* The extension of path's last component: what follows its last dot, "" for
 * a name that ends in a dot, or NULL where there is no dot but a leading one
 * (".profile", "dir.d/name"). Points into path. The one rule for output
 * formats, report types and the {stem} and {ext} of output templates. */
const char *gf_path_ext(const char *path);

/* Parses s, n whole decimal numbers in [lo, hi] joined by sep ("640x480"
 * with sep 'x' and n 2), into v[0..n). Returns 0, or GF_EUSAGE with the
 * message "OPT: 'S' is not FORM (LO..HI each)". */
int gf_parse_ints(const char *opt, const char *form, const char *s, char sep, int n, int lo,
                  int hi, int *v);

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016): the next 32 random bits from *state, which
 * must not be 0. For test and benchmark inputs, not for anything secret. */
unsigned gf_rand(uint64_t *state);

/* Allocates *im (gf_image_alloc) as width x height random pixels of the
 * layout (channels, bits), every sample from *state. Returns 0, or
 * GF_EINTERNAL when out of memory. */
int gf_image_random(gf_image *im, int width, int height, int channels, int bits,
                    uint64_t *state);

/* Monotonic wall clock in milliseconds. */
double gf_now_ms(void);

/* The median of the n (>= 1) values at v, which are sorted in place: the
 * middle one, or the mean of the middle two. */
double gf_median(double *v, int n);

/* The threads the CPU paths run on (OpenMP's count; 1 without OpenMP). */
int gf_cpu_threads(void);

/* 1 when the CPU has what GF_AVX2_FN (gf_cpu_avx2) or GF_AVX512_FN
 * (gf_cpu_avx512) functions use and they are compiled (GF_X86); else 0. */
int gf_cpu_avx2(void);
int gf_cpu_avx512(void);

/* Sets the calling thread's OpenMP team size for the CPU paths it runs
 * from now on (n >= 1; nothing without OpenMP): a batch's workers take
 * their share of the cores, so their teams do not pile up on them. */
void gf_set_cpu_threads(int n);

/* The fewest pixels for which a CPU path spreads over threads: starting a
 * team of threads costs more than a smaller image takes on one. */
#define GF_PARALLEL_PIXELS (1 << 18)

/* 1 when an image of w x h pixels is worth several threads. */
#define GF_PARALLEL(w, h) ((uint64_t)(w) * (uint64_t)(h) >= GF_PARALLEL_PIXELS)

/* gf_now_ms() when main() started: the process's own clock. */
extern double gf_process_t0;

#ifdef __cplusplus
}
#endif

#endif
