# gpufilt - GPU image filters. `make` builds ./gpufilt; `make test` needs no
# GPU; `make test-gpu` checks every kernel variant on a GPU machine.
include config.mk

# OpenMP for the CPU paths; the sanitizer and fuzzing builds leave it out
# (OMP=), running them on one thread, so that every thread they see is
# gpufilt's own. SAN: sanitizer flags for compiling and linking.
OMP ?= -fopenmp
SAN ?=
# The flags gpufilt needs, then the user's.
GF_CFLAGS = -std=c11 -Wall -Wextra -Wno-unknown-pragmas $(OMP) $(SAN) -D_GNU_SOURCE \
            -DGF_HAVE_CUDA=$(CUDA) $(DEP_CFLAGS) $(CFLAGS)
# nvJPEG (GPU JPEG decoding) where the toolkit has its header; loaded at run time.
NVJPEG ?= $(if $(wildcard $(CUDA_HOME)/include/nvjpeg.h),1,0)
GF_NVCCFLAGS = -std=c++17 -Xcompiler -Wall,-fopenmp -DGF_HAVE_CUDA=1 -DGF_HAVE_NVJPEG=$(NVJPEG) \
               -DGF_CUDA_LIBDIR='"$(CUDA_LIBDIR)"' $(DEP_CFLAGS) $(NVCCFLAGS)
GF_LDLIBS = $(DEP_LDFLAGS) -lspng -lwebp -lwebpdemux -lwebpmux -Wl,-Bstatic -lturbojpeg -ljansson -ldeflate -Wl,-Bdynamic -lisal -ltiff -ldl -lpthread -lm \
            $(OMP) $(SAN) $(LDFLAGS)

# The toolkit's own library folder: targets/<arch>-linux/lib (x86_64, sbsa
# or aarch64), else lib64.
CUDA_LIBDIR ?= $(firstword $(wildcard $(CUDA_HOME)/targets/$(shell uname -m)-linux/lib \
                 $(CUDA_HOME)/targets/sbsa-linux/lib) $(CUDA_HOME)/lib64)

B ?= build/$(if $(filter 1,$(CUDA)),cuda,cpu)
LIB_C := $(filter-out src/main.c src/gpu_none.c,$(wildcard src/*.c src/*/*.c)) third_party/stb.c
ifeq ($(CUDA),1)
LIB_CU := $(filter-out cuda/npp_peers.cu,$(wildcard cuda/*.cu))
CUDA_LIBS := -L$(CUDA_LIBDIR) -lcudart_static -ldl -lrt -lstdc++
else
LIB_C += src/gpu_none.c
LIB_CU :=
CUDA_LIBS :=
endif
# PEERS=1: also NPP and cuBLAS as gpufilt bench's peers (needs the full CUDA
# toolkit; not for CI). `make clean` when switching.
ifeq ($(PEERS),1)
PEER_OBJ := $(B)/cuda/npp_peers.o
PEER_LIBS := -lnppif -lnppim -lnppig -lnppidei -lnppist -lnppicc -lnppc -lcublas -lcudart
endif
LIB_OBJ := $(LIB_C:%.c=$(B)/%.o) $(LIB_CU:%.cu=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
LDLIBS_ALL = $(PEER_LIBS) $(GF_LDLIBS) $(CUDA_LIBS)

NEWEST := $(lastword $(CUDA_ARCHS))
GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_$(NEWEST),code=compute_$(NEWEST)

.PHONY: all gpufilt deps demo test test-unit test-cli test-layers test-same-bytes test-gpu test-asan test-tsan fuzz \
        test-unit-asan test-cli-asan \
        fuzz-build install uninstall clean

all: gpufilt

# Installs missing Debian packages when run as root, else says what to run.
# SKIP_DEPS=1 skips this, for machines whose headers come from elsewhere.
deps:
	@[ -n "$(SKIP_DEPS)" ] || sh scripts/deps.sh install

gpufilt: $(B)/gpufilt
	cp $< $@

$(B)/gpufilt: $(B)/src/main.o $(B)/libgf.a $(PEER_OBJ) | deps
	$(CC) $(GF_CFLAGS) -o $@ $(B)/src/main.o $(PEER_OBJ) $(B)/libgf.a $(LDLIBS_ALL)

$(B)/libgf.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(GF_CFLAGS) -MMD -MP -c -o $@ $<

# The stages' CPU paths are loops for the vectoriser.
$(B)/src/stages/%.o: GF_CFLAGS += -O3

# Resampling sums in double exactly as Pillow's x86-64 build does: no fused
# multiply-adds (the x86-64-v4 clones could contract them).
$(B)/src/stages/resize.o: GF_CFLAGS += -ffp-contract=off -Wno-psabi

# CLAHE interpolates in single precision exactly as OpenCV's x86-64 build
# does: no fused multiply-adds (the x86-64-v4 and AVX2 clones could contract them).
$(B)/src/stages/clahe.o: GF_CFLAGS += -ffp-contract=off

# The tone stages' tables by their rules' IEEE operations, never fused (the
# device makes the same tables with __fmul_rn and the like: tone.h).
$(B)/src/stages/equalize.o $(B)/src/stages/autocontrast.o $(B)/src/stages/level.o \
$(B)/src/stages/gamma.o: GF_CFLAGS += -ffp-contract=off

# stb's code is not ours to warn about.
$(B)/third_party/stb.o: GF_CFLAGS += -w

$(B)/%.o: %.cu | deps
	@mkdir -p $(dir $@)
	$(NVCC) $(GF_NVCCFLAGS) $(GENCODE) -MMD -MP -c -o $@ $<

demo: gpufilt
	sh samples/demo.sh

UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)

$(B)/unit/%: tests/unit/%.c tests/unit/common.h $(B)/libgf.a | deps
	@mkdir -p $(dir $@)
	$(CC) $(GF_CFLAGS) -o $@ $< $(B)/libgf.a -lcmocka $(LDLIBS_ALL) -lz

# Every unit test, N at a time under make -jN (test_stages, the longest,
# first), each one's output whole when it ends; UNIT_ENV: the environment
# they run in. Side by side, OpenMP's idle threads wait asleep, not spinning
# (tests/run_bats.sh says why).
UNIT_RUN := $(patsubst %,%.run,$(filter %/test_stages,$(UNIT_BIN)) $(filter-out %/test_stages,$(UNIT_BIN)))
test-unit: $(UNIT_RUN)

$(B)/unit/%.run: $(B)/unit/%
	@OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive} $(UNIT_ENV) $< >$<.log 2>&1; st=$$?; \
	echo "== $<"; cat $<.log; exit $$st

test-cli: gpufilt
	GPUFILT=$(CURDIR)/$(B)/gpufilt sh tests/run_bats.sh tests/cli

# No file of src/codec calls or includes its way back to itself: the
# objects' symbols (nm) and the #include lines, as tests/codec_layers.py says.
test-layers: $(filter $(B)/src/codec/%,$(LIB_OBJ))
	python3 tests/codec_layers.py src/codec $(B)/src/codec

# One large image written SAME_BYTES_COUNT times (PNG, JPEG, TIFF and WebP, the CPU
# backend), from batches and single processes at once: all the bytes equal.
# make test writes it 20 times a format, this target 200.
SAME_BYTES_COUNT ?= 200
test-same-bytes: gpufilt
	SAME_BYTES_COUNT=$(SAME_BYTES_COUNT) sh tests/same_bytes.sh $(B)/gpufilt cpu png jpg tif webp

# `make -jN test` builds on N cores, then runs the suites one after another,
# each on every core (tests/run_bats.sh: N command-line tests at a time).
test: gpufilt $(UNIT_BIN) $(filter $(B)/src/codec/%,$(LIB_OBJ))
	@$(MAKE) --no-print-directory test-layers
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory test-cli
	SAME_BYTES_COUNT=20 sh tests/same_bytes.sh $(B)/gpufilt cpu png jpg tif webp

$(B)/test_gpu: tests/gpu/test_gpu.c $(B)/libgf.a | deps
	$(CC) $(GF_CFLAGS) -o $@ $< $(B)/libgf.a $(LDLIBS_ALL)

# Every variant against the gold reference, then again under
# compute-sanitizer; skips with a message where no GPU is usable.
# GPU_STEPS, GPU_STAGES and GPU_TOOLS run a piece of it, GPU_PARALLEL=1 the
# sanitizer tools at the same time (tests/gpu/run.sh).
test-gpu: $(B)/test_gpu gpufilt
	sh tests/gpu/run.sh $(B)/test_gpu

# The CPU test suite under AddressSanitizer, UndefinedBehaviorSanitizer and
# LeakSanitizer (a CPU-only build in build/asan).
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# Under make -jN the unit tests run beside the command-line tests (bats's
# summary of failures comes at its own end). The command-line tests that
# check timings or memory peaks skip under a sanitizer (GPUFILT_SANITIZER).
test-asan:
	$(MAKE) CUDA=0 B=build/asan SAN="$(ASAN_FLAGS)" test-cli-asan test-unit-asan

test-unit-asan: UNIT_ENV = ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=print_suppressions=0:suppressions=$(CURDIR)/tests/lsan.supp
test-unit-asan: $(UNIT_RUN)

test-cli-asan: $(B)/gpufilt
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=print_suppressions=0:suppressions=$(CURDIR)/tests/lsan.supp \
	UBSAN_OPTIONS=print_stacktrace=1 GPUFILT_SANITIZER=asan GPUFILT=$(CURDIR)/$(B)/gpufilt \
	    sh tests/run_bats.sh tests/cli

# Batches with several workers, and parallel report writing, under
# ThreadSanitizer (build/tsan; OpenMP left out, see OMP above).
test-tsan:
	$(MAKE) CUDA=0 B=build/tsan OMP= SAN=-fsanitize=thread build/tsan/gpufilt build/tsan/unit/test_reports
	TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" build/tsan/unit/test_reports
	TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" GPUFILT_SANITIZER=tsan GPUFILT=$(CURDIR)/build/tsan/gpufilt \
	    sh tests/run_bats.sh -f batch tests/cli

# libFuzzer harnesses (tests/fuzz/) with ASan and UBSan, built by clang into
# build/fuzz; `make fuzz` runs each for FUZZ_SECONDS on its seed corpus
# (tests/fuzz/corpus/NAME) plus what earlier runs found (build/fuzz/corpus),
# and leaves any crash in build/fuzz/crashes.
FUZZ_SECONDS ?= 60
FUZZERS := png jpeg bmp pnm tiff webp cli meta
FUZZ_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g
fuzz-build:
	$(MAKE) CUDA=0 CC=clang OMP= B=build/fuzz SAN="$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link" \
	    $(FUZZERS:%=build/fuzz/fuzz_%)

$(B)/fuzz_%: tests/fuzz/fuzz_%.c $(B)/libgf.a | deps
	$(CC) $(GF_CFLAGS) -fsanitize=fuzzer -o $@ $< $(B)/libgf.a $(LDLIBS_ALL)

fuzz: $(FUZZERS:%=fuzz-run-%)

# fuzz-run-NAME: the harness NAME for FUZZ_SECONDS (make -jN fuzz runs N at once)
fuzz-run-%: fuzz-build
	@mkdir -p build/fuzz/crashes build/fuzz/corpus/$*
	@LSAN_OPTIONS=print_suppressions=0:suppressions=$(CURDIR)/tests/lsan.supp build/fuzz/fuzz_$* \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=build/fuzz/crashes/$*- -print_final_stats=1 \
	    build/fuzz/corpus/$* tests/fuzz/corpus/$* >build/fuzz/$*.log 2>&1; st=$$?; \
	echo "== fuzz_$*, $(FUZZ_SECONDS) s"; \
	grep -E '^(stat::|SUMMARY|==[0-9]+==ERROR)|cov: ' build/fuzz/$*.log | tail -8; \
	[ $$st = 0 ] || { echo "fuzz_$*: a finding, in build/fuzz/crashes"; exit 1; }

install: gpufilt
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 gpufilt $(DESTDIR)$(PREFIX)/bin/gpufilt
	install -m 644 man/gpufilt.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpufilt.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gpufilt $(DESTDIR)$(PREFIX)/share/man/man1/gpufilt.1

clean:
	rm -rf build gpufilt

-include $(shell find build -name '*.d' 2>/dev/null)
