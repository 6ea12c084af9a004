# config.mk - build settings; override any of them on the make command line.
PREFIX ?= /usr/local
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda) /usr)
NVCC ?= $(CUDA_HOME)/bin/nvcc
# Machine code for these compute capabilities, plus PTX for the newest, so
# later GPUs JIT-compile it. `make CUDA_ARCHS=90` builds for one, quickly.
CUDA_ARCHS ?= 75 80 86 89 90
CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -fopenmp -D_GNU_SOURCE
NVCCFLAGS ?= -O3 -lineinfo
# Where stb's headers (<stb/stb_image.h>) and libdeflate live.
STB_CFLAGS ?= -I/usr/include
DEFLATE_LIBS ?= -ldeflate
