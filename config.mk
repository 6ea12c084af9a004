# config.mk - build settings; override any of them on the make command line.
# A CFLAGS, LDFLAGS or NVCCFLAGS given here or on the command line adds to
# the flags the build needs; it never replaces them.
PREFIX ?= /usr/local
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda) /usr)
NVCC ?= $(CUDA_HOME)/bin/nvcc
# CUDA=1 builds the GPU kernels (needs nvcc); CUDA=0 a CPU-only gpufilt.
# By default, 1 when nvcc is found.
CUDA ?= $(if $(wildcard $(NVCC)),1,0)
# Machine code for these compute capabilities, plus PTX for the newest, so
# later GPUs JIT-compile it. `make CUDA_ARCHS=90` builds for one, quickly.
CUDA_ARCHS ?= 75 80 86 89 90
CC ?= gcc
CFLAGS ?= -O2 -g
NVCCFLAGS ?= -O3 -lineinfo
# Where stb's headers (<stb/stb_image.h>) and the libraries live, for
# machines whose headers come from elsewhere (see README, "Developing on a
# GPU machine").
DEP_CFLAGS ?=
DEP_LDFLAGS ?=
