/* bench_jpeg.h - `gpufilt bench jpeg`: the rates a photo batch is judged
 * by, measured on this machine with the user's photos or generated ones:
 * libjpeg-turbo on every core (RGB, and the luma alone as --gray decodes),
 * nvJPEG's hardware decoder in batches of 64 from GF_JPEG_GPU_LANES threads
 * (RGB and luma), its GPU_HYBRID and HYBRID backends the same way, the hardware and the CPU decoding at once from one
 * list (as a batch run does), and PNG encoding alone on every core at the
 * default level. */
#ifndef GF_BENCH_JPEG_H
#define GF_BENCH_JPEG_H

#include "bench.h"
#include "gpu.h"

/* The photos: the .jpg and .jpeg files of dir, at most n, in name order,
 * read into memory first; with dir NULL, n generated 2400x1600 RGB photos
 * (4:2:0, quality 90). gpu NULL (--cpu): the CPU rows alone. Each row is ms
 * a photo (the median of reps passes over all of them, after one untimed)
 * with the decoded bytes; t's notes get each rate in images/s. The
 * hardware row's check: its RGB of the first 64 photos equals
 * libjpeg-turbo's. Errors: GF_ENOINPUT (no such folder or no JPEG in it),
 * GF_EDATA (a photo the CPU cannot decode), GF_EINTERNAL. */
int gf_bench_jpeg(gf_bench_table *t, gf_gpu *gpu, int device, const char *dir, int n, int reps);

#endif
