/* lut.h - lookup tables applied to the colour channels of an image, alpha
 * left as it is: the machinery the tone stages share (--equalize,
 * --autocontrast, --level, --gamma, --negate; src/stages/tone.h has their
 * rules). A table maps every sample value of a depth to a value of that
 * depth: 256 entries of uint8_t for 8-bit images, 65536 of uint16_t for
 * 16-bit ones. An image of C channels has gf_lut_colours(C) colour
 * channels (gray; gray of gray+alpha; red, green, blue of RGB and RGBA);
 * alpha, the last of 2 or 4 channels, is copied.
 *
 * Pieces, each usable alone (CLAHE takes the table type, the application
 * and the histogram):
 *   gf_lut, gf_lut_alloc  a set of tables (one for every colour channel, or
 *                         one each), host memory;
 *   gf_lut_apply_gold/cpu in -> out through the tables;
 *   gf_lut_hist           each channel's histogram (src/stages/hist.h's);
 *   gf_lut_run            a tone stage's CPU paths from its table function;
 *   gf_lut_cuda           the same on the GPU, in four variants that differ
 *                         only in where the kernel reads the table
 *                         (cuda/lut.cu); GF_LUT_LAUNCHERS and
 *                         GF_LUT_VARIANTS give a stage its variant table. */
#ifndef GF_LUT_H
#define GF_LUT_H

#include <stdint.h>

#include "../gf.h"
#include "../stage.h"
#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most tables of a set: one per colour channel. */
#define GF_LUT_MAX_TABLES 3

/* Colour channels of an image of `channels` channels: 1, 1, 3, 3. */
static inline int gf_lut_colours(int channels)
{
    return channels == 2 ? 1 : channels == 4 ? 3 : channels;
}

/* 1 when channel c of an image of `channels` channels is alpha. */
static inline int gf_lut_is_alpha(int channels, int c)
{
    return (channels == 2 || channels == 4) && c == channels - 1;
}

/* A set of tables in host memory: ntables tables of gf_hist_bins(bits)
 * entries each, table after table; entries are uint8_t for 8 bits and
 * uint16_t for 16. ntables 1: the one table serves every colour channel;
 * otherwise table c serves colour channel c (ntables is then the image's
 * gf_lut_colours). */
typedef struct gf_lut {
    int bits;
    int ntables;
    void *data;
} gf_lut;

/* Allocates lut's tables (malloc; contents undefined). ntables 1 ..
 * GF_LUT_MAX_TABLES. Returns 0, or GF_EINTERNAL when out of memory. */
int gf_lut_alloc(gf_lut *lut, int bits, int ntables);

/* Frees lut's tables; safe on a zeroed lut. */
void gf_lut_free(gf_lut *lut);

/* Table t of lut (t < ntables) as uint8_t (8 bits) or uint16_t (16). */
static inline uint8_t *gf_lut8(const gf_lut *lut, int t)
{
    return (uint8_t *)lut->data + (size_t)t * 256;
}

static inline uint16_t *gf_lut16(const gf_lut *lut, int t)
{
    return (uint16_t *)lut->data + (size_t)t * 65536;
}

/* Entry v of the table of colour channel c, and setting it. */
static inline unsigned gf_lut_get(const gf_lut *lut, int c, unsigned v)
{
    const int t = lut->ntables == 1 ? 0 : c;
    return lut->bits == 8 ? gf_lut8(lut, t)[v] : gf_lut16(lut, t)[v];
}

static inline void gf_lut_set(gf_lut *lut, int t, unsigned v, unsigned value)
{
    if (lut->bits == 8)
        gf_lut8(lut, t)[v] = (uint8_t)value;
    else
        gf_lut16(lut, t)[v] = (uint16_t)value;
}

/* Table t of lut as the identity: each value maps to itself. */
void gf_lut_identity(gf_lut *lut, int t);

/* in (host, any layout and stride) -> out (host, the same size and layout,
 * any stride; may be in itself): each colour sample v of channel c becomes
 * the entry v of c's table, alpha is copied. lut->bits must be in's bits
 * and lut->ntables 1 or gf_lut_colours(in->channels).
 * gf_lut_apply_gold goes one sample at a time: the reference.
 * gf_lut_apply_cpu is the CPU backend's path: rows in parallel (OpenMP);
 * 8-bit rows 64 bytes at a time where the CPU has AVX-512 VBMI (a table
 * in four registers; two byte permutes of two registers each, VPERMI2B,
 * picked by each byte's top bit; the alpha blended back; a separate
 * output of 16 MB or more with the input by non-temporal stores),
 * otherwise a sample at a time.
 * Returns 0, or GF_EINTERNAL on a size, layout or table mismatch. */
int gf_lut_apply_gold(const gf_lut *lut, const gf_image *in, gf_image *out);
int gf_lut_apply_cpu(const gf_lut *lut, const gf_image *in, gf_image *out);

/* 1 (the default): gf_lut_apply_cpu takes the VBMI path where the CPU has
 * it; 0: a sample at a time everywhere (tests check both). */
extern int gf_lut_simd;

/* Each channel's histogram of in (host) into *bins, malloc'd here:
 * channels x gf_hist_bins(bits) counts (hist.h's order), by gf_hist_gold
 * (gold != 0) or gf_hist_cpu. Returns 0 or GF_EINTERNAL; *bins is NULL on
 * error. */
int gf_lut_hist(const gf_image *in, int gold, uint32_t **bins);

/* A tone stage's tables for an image of in's shape: fills lut (zeroed on
 * entry; allocated here with gf_lut_alloc) for stage s. Tables that depend
 * on the pixels (a histogram's) read in's pixels, with the gold histogram
 * when gold != 0; tables from the parameters alone read only in's shape
 * (in->data may then be NULL, as on the GPU). Errors: GF_EINTERNAL. */
typedef int (*gf_lut_table_fn)(const gf_stage *s, const gf_image *in, int gold, gf_lut *lut);

/* Stage s's CPU path on in into out (may be in): its tables from `table`,
 * then gf_lut_apply_gold (gold != 0) or gf_lut_apply_cpu. Errors: as
 * theirs. */
int gf_lut_run(const gf_stage *s, const gf_image *in, gf_image *out, int gold,
               gf_lut_table_fn table);

/* The CPU paths' cost in ns per input byte on one thread (gf_stage_ops'
 * cpu_cost_of), measured at 5120x2880: a table from the parameters
 * (gf_lut_cost) and one from the image's histogram too
 * (gf_lut_cost_hist), 8-bit rows 64 bytes a step, 16-bit a sample. */
double gf_lut_cost(const gf_stage *s, const gf_shape *in);
double gf_lut_cost_hist(const gf_stage *s, const gf_shape *in);

/* A tone stage's CPU paths, NAME_gold, NAME_cpu and NAME_in_place
 * (static, for its gf_stage_ops), by gf_lut_run with TABLE. */
#define GF_LUT_CPU_PATHS(NAME, TABLE)                                                        \
    static int NAME##_gold(const gf_stage *s, const gf_image *in, gf_image *out)             \
    {                                                                                        \
        return gf_lut_run(s, in, out, 1, TABLE);                                             \
    }                                                                                        \
    static int NAME##_cpu(const gf_stage *s, const gf_image *in, gf_image *out)              \
    {                                                                                        \
        return gf_lut_run(s, in, out, 0, TABLE);                                             \
    }                                                                                        \
    static int NAME##_in_place(const gf_stage *s, gf_image *img)                             \
    {                                                                                        \
        return gf_lut_run(s, img, img, 0, TABLE);                                            \
    }

/* The CUDA side (cuda/lut.cu). The variants of a table's application, each
 * reading the table from one kind of memory, all exact and for every
 * layout, a thread 16 bytes of a row at a time (one 16-byte load and
 * store):
 *   GF_LUT_GLOBAL    global memory, through the read-only cache (__ldg);
 *   GF_LUT_SHARED    the tables staged in shared memory by each block first
 *                    (blocks resident on every SM, rows by a grid stride);
 *                    16-bit tables where they do not fit a block's shared
 *                    memory (two or three tables, 256 or 384 KB, or one of
 *                    128 KB on a GPU with less) are read as GF_LUT_GLOBAL
 *                    reads them;
 *   GF_LUT_CONSTANT  constant memory (8-bit tables, 256 bytes each, copied
 *                    into one of 8 slots of __constant__ memory on the
 *                    stream); the lanes of a warp that read different
 *                    entries wait on each other. A 16-bit table of 128 KB
 *                    does not fit constant memory's 64 KB: read as
 *                    GF_LUT_GLOBAL reads it;
 *   GF_LUT_TEXTURE   a texture object over the tables (tex1Dfetch, point
 *                    reads of unnormalised integers: exact). */
enum { GF_LUT_GLOBAL, GF_LUT_SHARED, GF_LUT_CONSTANT, GF_LUT_TEXTURE, GF_LUT_NVARIANTS };

/* A tone stage's tables made on the device for image in (device): writes
 * gf_lut_colours(in->channels) tables of gf_hist_bins(in->bits) entries
 * (uint8_t or uint16_t, table after table) at `tables` (device) on
 * `stream`, without waiting; the image stays on the device. Returns 0 or
 * GF_EINTERNAL. */
typedef int (*gf_lut_device_fn)(const gf_stage *s, const gf_dimage *in, void *tables,
                                void *stream);

/* Stage s on the GPU, as a gf_launch_fn with the variant `variant`: out
 * (device) takes in's shape, and each colour sample goes through s's
 * tables, alpha copied. The tables come from `device` when it is not NULL
 * (made on the device, in one of 8 slots of device memory per GPU that
 * the calls take in turn, each waiting on the stream for the kernel of the
 * slot's last use); otherwise from `table` on the host, made at the first
 * call with these parameters, depth and GPU and kept on that GPU for the
 * rest of the process (64 sets at most; past that each call copies its
 * tables from the host). Launches on `stream` without waiting, but for the
 * copies of a first call. Returns 0 or GF_EINTERNAL. */
int gf_lut_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                gf_lut_table_fn table, gf_lut_device_fn device, void *stream);

/* A tone stage's four launchers, NAME_global_cuda .. NAME_texture_cuda
 * (static), calling gf_lut_cuda with TABLE and DEVICE; nothing in a build
 * without CUDA. GF_LUT_VARIANTS(NAME) is its variant list, baseline first,
 * to end with {NULL, NULL}. */
#if GF_HAVE_CUDA
#define GF_LUT_LAUNCHER(NAME, V, VARIANT, TABLE, DEVICE)                                     \
    static int NAME##_##V##_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,     \
                                 void *stream)                                               \
    {                                                                                        \
        return gf_lut_cuda(s, in, out, VARIANT, TABLE, DEVICE, stream);                      \
    }
#define GF_LUT_LAUNCHERS(NAME, TABLE, DEVICE)                                                \
    GF_LUT_LAUNCHER(NAME, global, GF_LUT_GLOBAL, TABLE, DEVICE)                              \
    GF_LUT_LAUNCHER(NAME, shared, GF_LUT_SHARED, TABLE, DEVICE)                              \
    GF_LUT_LAUNCHER(NAME, constant, GF_LUT_CONSTANT, TABLE, DEVICE)                          \
    GF_LUT_LAUNCHER(NAME, texture, GF_LUT_TEXTURE, TABLE, DEVICE)
#else
#define GF_LUT_LAUNCHERS(NAME, TABLE, DEVICE)
#endif
#define GF_LUT_VARIANTS(NAME)                                                                \
    {"global", GF_CUDA(NAME##_global_cuda)}, {"shared", GF_CUDA(NAME##_shared_cuda)},        \
        {"constant", GF_CUDA(NAME##_constant_cuda)}, {"texture", GF_CUDA(NAME##_texture_cuda)}

/* The tone stages' defaults: the shared variant everywhere (see
 * docs/benchmarks.md). */
extern const gf_default gf_lut_defaults[];

#ifdef __cplusplus
}
#endif

#endif
