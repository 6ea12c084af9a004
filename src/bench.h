/* bench.h - `gpufilt bench`: the classic CUDA memory experiments, run with
 * gpufilt's own verified kernels, each beside the copy-bandwidth floor. */
#ifndef GF_BENCH_H
#define GF_BENCH_H

/* argv[0] is "bench". Returns the exit status: 0 all checks passed, 64 usage,
 * 69 no usable GPU, 70 a check failed or a CUDA error. */
int gf_bench_main(int argc, char **argv);

#endif
