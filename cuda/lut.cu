/* lut.cu - lookup tables applied to the colour channels of a device image
 * (src/stages/lut.h): the tone stages' kernels and where their tables live.
 *
 * One kernel, lut_apply_kernel, in four variants that differ only in where
 * it reads the table (GF_LUT_GLOBAL, _SHARED, _CONSTANT, _TEXTURE). A
 * thread takes 16 bytes of a row (16 samples of 8 bits or 8 of 16) with
 * one 16-byte load and store, rows starting on 256-byte boundaries; the
 * last, partial vector of a row goes a sample at a time. Sample j of the
 * vector starting at sample x0 is channel (x0 + j) % C: for 1, 2 and 4
 * channels that is j % C (x0 is a multiple of 8), for RGB it starts at
 * x0 % 3 and steps round.
 *
 * The tables: those from the parameters alone (level, gamma, negate) are
 * made on the host by the stage's table function at the first call with
 * those parameters, depth and GPU, copied to the device once and kept,
 * with a texture object over them (LUT_CACHE sets). Those from the image
 * (equalize, autocontrast) are made on the device into a slot: LUT_SLOTS
 * buffers per GPU, each with texture objects over it and an event; the
 * calls take them in turn, and a call waits (on its stream, not on the
 * host) for the kernel of the slot's last use. The constant variant copies
 * its 8-bit tables into the __constant__ slot of the same number, device
 * to device on the stream. Every call holds one lock while it picks and
 * fills a slot and launches, so that batches of several streams never
 * share a slot in flight. */
#include <pthread.h>
#include <string.h>

#include "check.h"

#include "../src/stages/lut.h"

/* Threads of a block: LUT_BX along a row (64 x 16 bytes = 1 KB), LUT_BY
 * rows; the shared variant's blocks with a 16-bit table stay resident and
 * take LUT_BY_SHARED rows (1024 threads), since a table of 128 KB leaves
 * room for one block an SM. */
#define LUT_BX 64
#define LUT_BY 4
#define LUT_BY_SHARED 16
#define LUT_MAX_THREADS (LUT_BX * LUT_BY_SHARED)

#define LUT_SLOTS 8
#define LUT_SLOT_BYTES ((size_t)GF_LUT_MAX_TABLES * 65536 * 2) /* 384 KB */
#define LUT_CACHE 64
#define LUT_MAX_DEVICES 64

/* 8-bit tables of the constant variant: a slot per device slot (6 KB). */
__constant__ uint8_t c_lut[LUT_SLOTS][GF_LUT_MAX_TABLES][256];

/* Entry v of the table of colour channel c: cstride is 0 (one table) or
 * the entries of a table (one each). */
template <typename T, int SRC>
__device__ __forceinline__ unsigned lut_read(const T *__restrict__ tables, const T *sh,
                                             cudaTextureObject_t tex, int slot, int cstride,
                                             int c, unsigned v)
{
    const int i = c * cstride + (int)v;
    if constexpr (SRC == GF_LUT_SHARED)
        return sh[i];
    else if constexpr (SRC == GF_LUT_CONSTANT)
        return (&c_lut[slot][0][0])[i];
    else if constexpr (SRC == GF_LUT_TEXTURE)
        return tex1Dfetch<T>(tex, i);
    else
        return __ldg(tables + i);
}

/* Where a kernel reads its tables, and how a vector of samples goes
 * through them. */
template <typename T, int C, int SRC> struct lut_map {
    const T *__restrict__ tables; /* global and texture: the tables in device memory */
    const T *sh;                  /* shared: the block's copy */
    cudaTextureObject_t tex;
    int slot, cstride;

    __device__ __forceinline__ unsigned at(int c, unsigned v) const
    {
        return lut_read<T, SRC>(tables, sh, tex, slot, cstride, c, v);
    }

    /* The 16 bytes v at sample x0 of a row, mapped. */
    __device__ __forceinline__ uint4 vector(uint4 v, int x0) const
    {
        constexpr int N = 16 / (int)sizeof(T);
        constexpr unsigned MASK = sizeof(T) == 1 ? 0xffu : 0xffffu;
        const unsigned wi[4] = {v.x, v.y, v.z, v.w};
        unsigned wo[4] = {0, 0, 0, 0};
        int c3 = x0 % 3; /* RGB: the channel of sample j */
#pragma unroll
        for (int j = 0; j < N; j++) {
            const int word = j * (int)sizeof(T) / 4, shift = j * (int)sizeof(T) % 4 * 8;
            const unsigned s = (wi[word] >> shift) & MASK;
            const int c = C == 3 ? c3 : j % C;
            const bool alpha = (C == 2 || C == 4) && c == C - 1;
            wo[word] |= (alpha ? s : at(c, s)) << shift;
            c3 = c3 == 2 ? 0 : c3 + 1;
        }
        return make_uint4(wo[0], wo[1], wo[2], wo[3]);
    }

    /* Samples x0 .. n - 1 of a row, one at a time. */
    __device__ __forceinline__ void tail(const T *src, T *dst, int x0, int n) const
    {
        for (int x = x0; x < n; x++) {
            const int c = x % C;
            dst[x] = (C == 2 || C == 4) && c == C - 1 ? src[x] : (T)at(c, src[x]);
        }
    }
};

/* in -> out (n = width x C samples a row, h rows) through the tables. A
 * thread takes vector k of two rows LUT_ROWS apart, both loads issued
 * before either is mapped; a grid too small for the image (the shared
 * variant's resident blocks) strides over the rest. The shared variant
 * first copies ntables tables into shared memory. */
#define LUT_ROWS 2
template <typename T, int C, int SRC>
__global__ void __launch_bounds__(LUT_MAX_THREADS, 1)
    lut_apply_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int n,
                     int h, size_t ipitch, size_t opitch, const T *__restrict__ tables,
                     int ntables, cudaTextureObject_t tex, int slot)
{
    constexpr int NB = sizeof(T) == 1 ? 256 : 65536, N = 16 / (int)sizeof(T);
    extern __shared__ uint4 smem[];
    const lut_map<T, C, SRC> map = {tables, (const T *)smem, tex, slot,
                                    ntables == 1 ? 0 : (SRC == GF_LUT_CONSTANT ? 256 : NB)};

    if constexpr (SRC == GF_LUT_SHARED) {
        const int words = ntables * NB * (int)sizeof(T) / 16;
        const uint4 *g = (const uint4 *)tables;
        for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < words; i += blockDim.x * blockDim.y)
            smem[i] = __ldg(g + i);
        __syncthreads();
    }
    const int vecs = (n + N - 1) / N, ystep = gridDim.y * blockDim.y;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += LUT_ROWS * ystep) {
        const int y2 = y + ystep; /* the second row, when there is one */
        const T *src = (const T *)(in + (size_t)y * ipitch),
                *src2 = (const T *)(in + (size_t)y2 * ipitch);
        T *dst = (T *)(out + (size_t)y * opitch), *dst2 = (T *)(out + (size_t)y2 * opitch);
        for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < vecs; k += gridDim.x * blockDim.x) {
            const int x0 = k * N;
            if (x0 + N > n) { /* the row's last, partial vector */
                map.tail(src, dst, x0, n);
                if (y2 < h)
                    map.tail(src2, dst2, x0, n);
                continue;
            }
            const uint4 a = __ldg((const uint4 *)(const void *)(src + x0));
            uint4 b = make_uint4(0, 0, 0, 0);
            if (y2 < h)
                b = __ldg((const uint4 *)(const void *)(src2 + x0));
            *(uint4 *)(void *)(dst + x0) = map.vector(a, x0);
            if (y2 < h)
                *(uint4 *)(void *)(dst2 + x0) = map.vector(b, x0);
        }
    }
}

/* Launches the kernel of variant SRC for in -> out. smem: the shared
 * variant's bytes of tables; above LUT_SMALL_TABLES, resident blocks only
 * (the copy into shared memory is paid once a block). */
#define LUT_SMALL_TABLES (4 * 1024)
template <typename T, int C, int SRC>
static int apply_as(const gf_dimage *in, gf_dimage *out, const void *tables, int ntables,
                    cudaTextureObject_t tex, int slot, size_t smem, cudaStream_t st)
{
    constexpr int N = 16 / (int)sizeof(T);
    const int n = in->width * C, h = in->height, vecs = (n + N - 1) / N;
    const bool resident = SRC == GF_LUT_SHARED && smem > LUT_SMALL_TABLES;
    const int by = resident ? LUT_BY_SHARED : LUT_BY;
    const void *kernel = (const void *)lut_apply_kernel<T, C, SRC>;
    int gx = (vecs + LUT_BX - 1) / LUT_BX, gy = (h + LUT_ROWS * by - 1) / (LUT_ROWS * by), rc;

    if (gy > 65535)
        gy = 65535; /* rows by a grid stride past that */
    if (resident) {
        int blocks;
        if (smem > 48 * 1024)
            GF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)smem));
        if ((rc = gf_cuda_resident(kernel, LUT_BX * by, smem, &blocks)))
            return rc;
        if (gx > blocks)
            gx = blocks;
        if (gy > blocks / gx)
            gy = blocks / gx > 0 ? blocks / gx : 1;
    }
    lut_apply_kernel<T, C, SRC><<<dim3(gx, gy), dim3(LUT_BX, by), smem, st>>>(
        in->data, out->data, n, h, in->pitch, out->pitch, (const T *)tables, ntables, tex, slot);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* The variant's kernel for in's layout, or the global one where the tables
 * do not fit the variant's memory (smem_optin: a block's shared memory). */
template <typename T, int C>
static int apply(const gf_dimage *in, gf_dimage *out, int variant, const void *tables,
                 int ntables, cudaTextureObject_t tex, int slot, int smem_optin, cudaStream_t st)
{
    const size_t smem = (size_t)ntables * (sizeof(T) == 1 ? 256 : 65536) * sizeof(T);

    if (variant == GF_LUT_SHARED && smem <= (size_t)smem_optin)
        return apply_as<T, C, GF_LUT_SHARED>(in, out, tables, ntables, tex, slot, smem, st);
    if (variant == GF_LUT_TEXTURE)
        return apply_as<T, C, GF_LUT_TEXTURE>(in, out, tables, ntables, tex, slot, 0, st);
    if constexpr (sizeof(T) == 1)
        if (variant == GF_LUT_CONSTANT)
            return apply_as<T, C, GF_LUT_CONSTANT>(in, out, tables, ntables, tex, slot, 0, st);
    return apply_as<T, C, GF_LUT_GLOBAL>(in, out, tables, ntables, tex, slot, 0, st);
}

/* A texture object of `bits`-bit unsigned integers over bytes of device
 * memory at ptr, read as they are (point reads, no normalisation). */
static int make_texture(void *ptr, size_t bytes, int bits, cudaTextureObject_t *tex)
{
    cudaResourceDesc rd;
    cudaTextureDesc td;

    memset(&rd, 0, sizeof rd);
    memset(&td, 0, sizeof td);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = ptr;
    rd.res.linear.desc = bits == 8 ? cudaCreateChannelDesc<unsigned char>()
                                   : cudaCreateChannelDesc<unsigned short>();
    rd.res.linear.sizeInBytes = bytes;
    td.readMode = cudaReadModeElementType;
    td.filterMode = cudaFilterModePoint;
    GF_CUDA_CHECK(cudaCreateTextureObject(tex, &rd, &td, NULL));
    return 0;
}

/* What a GPU keeps: the slots of tables made on the device, and the
 * largest shared memory a block may have. */
typedef struct lut_gpu {
    int ready;
    int smem_optin;
    unsigned char *slots; /* LUT_SLOTS x LUT_SLOT_BYTES, device */
    cudaTextureObject_t tex8[LUT_SLOTS], tex16[LUT_SLOTS];
    cudaEvent_t done[LUT_SLOTS];
    unsigned next;
} lut_gpu;

/* A set of tables made on the host, kept on GPU dev. */
typedef struct lut_entry {
    int dev, bits, ntables;
    const gf_stage_ops *ops;
    unsigned char params[GF_STAGE_PARAMS];
    void *tables; /* device */
    cudaTextureObject_t tex;
} lut_entry;

static pthread_mutex_t lut_lock = PTHREAD_MUTEX_INITIALIZER; /* all below */
static lut_gpu gpus[LUT_MAX_DEVICES];
static lut_entry cache[LUT_CACHE];
static int ncache;

/* g ready on the current device, dev (at its first use: allocations). */
static int gpu_init(lut_gpu *g, int dev)
{
    if (g->ready)
        return 0;
    int rc = gf_cuda_smem_optin(&g->smem_optin);
    if (rc)
        return rc;
    GF_CUDA_CHECK(cudaMalloc((void **)&g->slots, LUT_SLOTS * LUT_SLOT_BYTES));
    for (int i = 0; i < LUT_SLOTS; i++) {
        unsigned char *p = g->slots + i * LUT_SLOT_BYTES;
        int rc;
        if ((rc = make_texture(p, LUT_SLOT_BYTES, 8, &g->tex8[i])) ||
            (rc = make_texture(p, LUT_SLOT_BYTES, 16, &g->tex16[i])))
            return rc;
        GF_CUDA_CHECK(cudaEventCreateWithFlags(&g->done[i], cudaEventDisableTiming));
    }
    g->ready = 1;
    return 0;
}

/* The kept tables of s at `bits` on dev into *e: found, or made now (the
 * host table, then a copy the stream waits for); NULL when the cache is
 * full. */
static int cache_get(const gf_stage *s, int dev, int bits, gf_lut_table_fn table,
                     cudaStream_t st, lut_entry **e)
{
    gf_image shape_only;
    gf_lut lut;
    lut_entry *n;
    int rc;

    *e = NULL;
    for (int i = 0; i < ncache; i++)
        if (cache[i].dev == dev && cache[i].bits == bits && cache[i].ops == s->ops &&
            !memcmp(cache[i].params, s->params.bytes, GF_STAGE_PARAMS)) {
            *e = &cache[i];
            return 0;
        }
    if (ncache == LUT_CACHE)
        return 0;
    memset(&shape_only, 0, sizeof shape_only);
    memset(&lut, 0, sizeof lut);
    shape_only.width = shape_only.height = 1;
    shape_only.channels = 1;
    shape_only.bits = bits;
    if ((rc = table(s, &shape_only, 0, &lut)))
        return rc;
    n = &cache[ncache];
    const size_t bytes = (size_t)lut.ntables * (size_t)gf_hist_bins(bits) * (size_t)(bits / 8);
    cudaError_t err = cudaMalloc(&n->tables, bytes);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(n->tables, lut.data, bytes, cudaMemcpyHostToDevice, st);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(st); /* complete before any stream reads it */
    if (err != cudaSuccess) {
        gf_lut_free(&lut);
        GF_CUDA_CHECK(err);
    }
    n->dev = dev;
    n->bits = bits;
    n->ntables = lut.ntables;
    n->ops = s->ops;
    memcpy(n->params, s->params.bytes, GF_STAGE_PARAMS);
    gf_lut_free(&lut);
    if ((rc = make_texture(n->tables, bytes, bits, &n->tex)))
        return rc;
    ncache++;
    *e = n;
    return 0;
}

/* gf_lut_cuda under lut_lock. */
static int lut_locked(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                      gf_lut_table_fn table, gf_lut_device_fn device, int dev, cudaStream_t st)
{
    lut_gpu *g = &gpus[dev];
    const int bits = in->bits, colours = gf_lut_colours(in->channels);
    const size_t table_bytes = (size_t)gf_hist_bins(bits) * (size_t)(bits / 8);
    const void *tables = NULL;
    cudaTextureObject_t tex = 0;
    lut_entry *e = NULL;
    int ntables = 0, slot = -1, rc;

    if ((rc = gpu_init(g, dev)))
        return rc;
    if (table && (rc = cache_get(s, dev, bits, table, st, &e)))
        return rc;
    if (e) {
        tables = e->tables;
        tex = e->tex;
        ntables = e->ntables;
    }
    if (device || !e || (variant == GF_LUT_CONSTANT && bits == 8)) {
        slot = (int)(g->next++ % LUT_SLOTS);
        GF_CUDA_CHECK(cudaStreamWaitEvent(st, g->done[slot], 0));
        unsigned char *buf = g->slots + (size_t)slot * LUT_SLOT_BYTES;
        if (device) {
            if ((rc = device(s, in, buf, st)))
                goto out;
            tables = buf;
            tex = bits == 8 ? g->tex8[slot] : g->tex16[slot];
            ntables = colours;
        } else if (!e) { /* the cache is full: this call's own copy */
            gf_image shape_only;
            gf_lut lut;
            memset(&shape_only, 0, sizeof shape_only);
            memset(&lut, 0, sizeof lut);
            shape_only.width = shape_only.height = shape_only.channels = 1;
            shape_only.bits = bits;
            if ((rc = table(s, &shape_only, 0, &lut)))
                goto out;
            cudaError_t err = cudaMemcpyAsync(buf, lut.data, (size_t)lut.ntables * table_bytes,
                                              cudaMemcpyHostToDevice, st);
            ntables = lut.ntables;
            gf_lut_free(&lut);
            if (err != cudaSuccess) {
                rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s", __FILE__, __LINE__,
                            cudaGetErrorString(err));
                goto out;
            }
            tables = buf;
            tex = bits == 8 ? g->tex8[slot] : g->tex16[slot];
        }
        if (variant == GF_LUT_CONSTANT && bits == 8) {
            cudaError_t err = cudaMemcpyToSymbolAsync(c_lut, tables, (size_t)ntables * 256,
                                                      (size_t)slot * sizeof c_lut[0],
                                                      cudaMemcpyDeviceToDevice, st);
            if (err != cudaSuccess) {
                rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s", __FILE__, __LINE__,
                            cudaGetErrorString(err));
                goto out;
            }
        }
    }
#define APPLY(T, C)                                                                           \
    rc = apply<T, C>(in, out, variant, tables, ntables, tex, slot < 0 ? 0 : slot,             \
                     g->smem_optin, st)
    GF_LAYOUT_SWITCH(in->channels, in->bits, APPLY)
#undef APPLY
out:
    if (slot >= 0) { /* the slot's next user waits for this */
        cudaError_t err = cudaEventRecord(g->done[slot], st);
        if (rc == 0 && err != cudaSuccess)
            rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s", __FILE__, __LINE__,
                        cudaGetErrorString(err));
    }
    return rc;
}

extern "C" int gf_lut_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                           gf_lut_table_fn table, gf_lut_device_fn device, void *stream)
{
    const gf_shape sh = gf_dimage_shape_of(in);
    int dev, rc;

    if (!table == !device || variant < 0 || variant >= GF_LUT_NVARIANTS ||
        !gf_layout_valid(in->channels, in->bits))
        return gf_err(GF_EINTERNAL, NULL, "lut: bad arguments (variant %d, %s)", variant,
                      gf_layout_name(in->channels, in->bits));
    if ((rc = gf_dimage_shape(out, &sh)))
        return rc;
    GF_CUDA_CHECK(cudaGetDevice(&dev));
    if (dev >= LUT_MAX_DEVICES)
        return gf_err(GF_EINTERNAL, NULL, "lut: GPU %d: at most %d GPUs", dev, LUT_MAX_DEVICES);
    pthread_mutex_lock(&lut_lock);
    rc = lut_locked(s, in, out, variant, table, device, dev, (cudaStream_t)stream);
    pthread_mutex_unlock(&lut_lock);
    return rc;
}
