/* median.h - the median filter stage: --median K, --border MODE.
 * Shared by src/stages/median.c (options, CPU paths) and cuda/median.cu.
 *
 * Each output sample is the exact median of its channel's K x K window of
 * the padded image (border.h): K*K is odd, so it is the middle value, the
 * (K*K/2)-th smallest counting from 0. With the replicate border this is
 * OpenCV's cv::medianBlur. */
#ifndef GF_MEDIAN_H
#define GF_MEDIAN_H

#include "../border.h"
#include "../gf.h"
#include "../stage.h"
#include "../stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's parameters (gf_stage.params): the window (kw == kh == K)
 * and the border. */
typedef gf_stencil_params gf_median_params;

/* The window sides --median takes: odd, 3..63. */
#define GF_MEDIAN_MIN_SIDE 3
#define GF_MEDIAN_MAX_SIDE 63

/* ---- Selection networks for K = 3 and 5, written once for the CPU fast
 * path (vectorised across a row), the CUDA kernels (in registers, two
 * samples to a word) and the unit test (which checks them on every 0-1
 * input: a comparator network selects the k-th smallest of every input
 * when it does so for every input of zeros and ones, Knuth, TAOCP vol. 3,
 * 5.3.4).
 *
 * The window is taken column by column: first each of its K columns is
 * sorted (GF_MEDIAN_SORT3 / GF_MEDIAN_SORT5, CS(a, b) putting the smaller
 * of elements a and b at a), which a row of outputs shares, since
 * neighbouring windows share columns; then a network over the K*K sorted
 * values, v[r*K + d] being the r-th smallest (r from 0) of the window's
 * column d (d from 0, leftmost), gives the median. Its steps are
 * X(dst, OP, a, b): value dst = OP(value a, value b), OP MIN or MAX, values
 * 0 .. K*K-1 the inputs and the others temporaries, numbered in order; the
 * median is value GF_MEDIAN3_OUT / GF_MEDIAN5_OUT.
 *
 * 3x3: the largest of the column minima, the median of the column medians
 * and the smallest of the column maxima; their median is the window's (the
 * classic column-sorting median; J. Smith, "Implementing median filters in
 * XC4000E FPGAs", Xilinx XCell 23, 1996): 12 steps.
 * 5x5: with the columns sorted, each row of ranks is sorted, which keeps
 * the columns sorted; then an element with at least 14 elements of the
 * window known to be >= it (or <= it) cannot be the median, leaving 13
 * candidates (ranks (0,3) (0,4) (1,2..4) (2,1..3) (3,0..2) (4,0) (4,1)),
 * whose 7th smallest is the median, taken by Batcher's odd-even merge sort
 * of 16 (three +infinity pads). The whole was then pruned: comparators that
 * never exchange on any 0-1 input (so on no input) were removed, and of the
 * rest only the minima and maxima that the median depends on kept: 118
 * steps, against 198 for the 99-exchange median-of-25 network of one
 * window alone (N. Devillard, "Fast median search: an ANSI C
 * implementation", 1998). */
#define GF_MEDIAN_SORT3(CS) CS(0, 1) CS(1, 2) CS(0, 1)
#define GF_MEDIAN_SORT5(CS) \
    CS(0, 1) CS(3, 4) CS(2, 4) CS(2, 3) CS(0, 3) CS(0, 2) CS(1, 4) CS(1, 3) CS(1, 2)

#define GF_MEDIAN3_NET(X)                                                                     \
    X(9, MAX, 0, 1) X(10, MAX, 9, 2) X(11, MIN, 6, 7) X(12, MIN, 11, 8) X(13, MIN, 3, 4)      \
    X(14, MAX, 3, 4) X(15, MIN, 14, 5) X(16, MAX, 13, 15) X(17, MIN, 10, 16)                  \
    X(18, MAX, 10, 16) X(19, MIN, 18, 12) X(20, MAX, 17, 19)
#define GF_MEDIAN3_OUT 20

#define GF_MEDIAN5_NET(X)                                                                     \
    X(25, MIN, 0, 1) X(26, MAX, 0, 1) X(27, MIN, 3, 4) X(28, MAX, 3, 4) X(29, MIN, 2, 28)     \
    X(30, MAX, 2, 28) X(31, MAX, 29, 27) X(32, MAX, 25, 31) X(33, MIN, 26, 30)               \
    X(34, MAX, 26, 30) X(35, MAX, 33, 32) X(36, MIN, 5, 6) X(37, MAX, 5, 6)                  \
    X(38, MIN, 8, 9) X(39, MAX, 8, 9) X(40, MIN, 7, 39) X(41, MAX, 7, 39)                    \
    X(42, MIN, 40, 38) X(43, MAX, 40, 38) X(44, MIN, 36, 43) X(45, MAX, 36, 43)              \
    X(46, MAX, 44, 42) X(47, MIN, 37, 41) X(48, MAX, 37, 41) X(49, MIN, 47, 45)              \
    X(50, MAX, 47, 45) X(51, MAX, 49, 46) X(52, MIN, 10, 11) X(53, MAX, 10, 11)              \
    X(54, MIN, 13, 14) X(55, MAX, 13, 14) X(56, MIN, 12, 55) X(57, MAX, 12, 55)              \
    X(58, MIN, 56, 54) X(59, MAX, 56, 54) X(60, MIN, 52, 59) X(61, MAX, 52, 59)              \
    X(62, MAX, 60, 58) X(63, MIN, 53, 57) X(64, MIN, 63, 61) X(65, MAX, 63, 61)              \
    X(66, MIN, 64, 62) X(67, MAX, 64, 62) X(68, MIN, 15, 16) X(69, MAX, 15, 16)              \
    X(70, MIN, 18, 19) X(71, MAX, 18, 19) X(72, MIN, 17, 71) X(73, MAX, 17, 71)              \
    X(74, MIN, 72, 70) X(75, MAX, 72, 70) X(76, MIN, 68, 75) X(77, MAX, 68, 75)              \
    X(78, MIN, 76, 74) X(79, MAX, 76, 74) X(80, MIN, 69, 73) X(81, MIN, 80, 77)              \
    X(82, MIN, 81, 79) X(83, MAX, 81, 79) X(84, MIN, 20, 21) X(85, MAX, 20, 21)              \
    X(86, MIN, 23, 24) X(87, MAX, 23, 24) X(88, MIN, 22, 87) X(89, MAX, 22, 87)              \
    X(90, MIN, 88, 86) X(91, MAX, 88, 86) X(92, MIN, 84, 91) X(93, MAX, 84, 91)              \
    X(94, MIN, 92, 90) X(95, MAX, 92, 90) X(96, MIN, 85, 89) X(97, MIN, 96, 93)              \
    X(98, MIN, 97, 95) X(99, MIN, 34, 35) X(100, MAX, 34, 35) X(101, MIN, 48, 66)            \
    X(102, MAX, 48, 66) X(103, MIN, 83, 94) X(104, MAX, 83, 94) X(105, MIN, 99, 51)          \
    X(106, MAX, 99, 51) X(107, MIN, 100, 50) X(108, MAX, 100, 50) X(109, MIN, 102, 65)       \
    X(110, MIN, 107, 106) X(111, MAX, 107, 106) X(112, MIN, 109, 67) X(113, MAX, 109, 67)    \
    X(114, MIN, 82, 103) X(115, MAX, 82, 103) X(116, MIN, 105, 101) X(117, MAX, 105, 101)    \
    X(118, MIN, 110, 112) X(119, MAX, 110, 112) X(120, MIN, 111, 117)                        \
    X(121, MAX, 111, 117) X(122, MIN, 108, 119) X(123, MAX, 108, 119)                        \
    X(124, MIN, 118, 120) X(125, MAX, 118, 120) X(126, MIN, 122, 121)                        \
    X(127, MAX, 122, 121) X(128, MIN, 123, 113) X(129, MAX, 123, 113)                        \
    X(130, MIN, 104, 98) X(131, MAX, 104, 98) X(132, MAX, 116, 78) X(133, MAX, 124, 114)     \
    X(134, MAX, 125, 115) X(135, MIN, 126, 130) X(136, MIN, 127, 131)                        \
    X(137, MAX, 136, 132) X(138, MIN, 128, 133) X(139, MIN, 129, 134)                        \
    X(140, MAX, 135, 138) X(141, MIN, 139, 137) X(142, MAX, 140, 141)
#define GF_MEDIAN5_OUT 142

/* Median filter of K x K (K odd, 3..63) over in -> out (host memory, both
 * width x height of one layout, any strides; out allocated by the caller),
 * each channel on its own, alpha included (as cv::medianBlur). The window
 * reads the padded image `border` defines (border.h; a constant border pads
 * every channel with its value); every pixel, border included, is written.
 * gf_median_gold: the reference, by the definition: each window gathered
 * and its middle value found by a counting sort (8-bit: 256 bins; 16-bit:
 * 256 bins of the high bytes, then 256 of the low bytes of the samples in
 * the median's high-byte bin), rows over the CPU threads (OpenMP).
 * gf_median_cpu: the CPU backend's fast path on the stencil framework
 * (stencil.h), equal to the gold bit for bit; out may be in itself (the
 * result replaces the input). K = 3 and 5: the networks above, vectorised
 * across the row; K >= 7, 8-bit: Perreault and Hebert's constant-time
 * median ("Median filtering in constant time", IEEE TIP 16(9), 2007):
 * a histogram of each column of the window slid down the rows, the
 * window's coarse (16-bin) histogram slid along the row from them, and a
 * fine (256-bin) one refreshed only for the coarse bin that holds the
 * median; K >= 7, 16-bit: Huang's sliding histogram (T. Huang, G. Yang, G.
 * Tang, "A fast two-dimensional median filtering algorithm", IEEE TASSP
 * 27(1), 1979) along each row, on three levels (by the top 8, 12 and 16
 * bits), the median's top-level bin tracked as the window moves.
 * Returns 0, or GF_EINTERNAL for a bad window, size or layout, or out of
 * memory. */
int gf_median_gold(const gf_image *in, gf_image *out, int k, gf_border border);
int gf_median_cpu(const gf_image *in, gf_image *out, int k, gf_border border);

/* CUDA launchers (cuda/median.cu), as gf_launch_fn, for every layout and
 * K:
 * `global`: a thread a pixel reads its window from global memory (through
 *   the border) and selects: the networks above for K = 3 and 5, else a
 *   radix selection (from the top bit down, the window's samples below the
 *   candidate counted: 8 passes for 8-bit samples, 16 for 16-bit);
 * `shared`: the same selection with the block's tile and halo staged in
 *   shared memory once (cuda/stencil.cuh);
 * `histogram`: K = 3 and 5: a warp slides down a strip, each lane 16 bytes
 *   wide (16-byte loads), its columns sorted once and shared with its
 *   neighbours by shuffle, the networks on two samples a word; K >= 7 on
 *   8-bit samples: a thread a sample column walks down a strip of rows with
 *   a sliding 256-bin histogram of its window in shared memory (each
 *   thread's counters in its own bank) and tracks the median (Huang);
 *   K >= 7 on 16-bit samples: `shared`'s method.
 * Images up to 65535 a side. */
int gf_median_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_median_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_median_histogram_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);

#ifdef __cplusplus
}
#endif

#endif
