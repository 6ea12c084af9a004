# gpufilt - GPU image filters. `make` builds ./gpufilt; `make test` needs no
# GPU; `make test-gpu` checks every kernel variant on a GPU machine.
include config.mk

B := build
LIB_C := $(filter-out src/main.c,$(wildcard src/*.c src/stages/*.c)) third_party/stb.c
LIB_CU := $(filter-out cuda/npp_peers.cu,$(wildcard cuda/*.cu))
# PEERS=1: also NPP and cuBLAS as gpufilt bench's peers (needs the full CUDA
# toolkit; not for CI). `make clean` when switching.
ifeq ($(PEERS),1)
PEER_OBJ := $(B)/cuda/npp_peers.o
PEER_LIBS := -lnppif -lnppig -lnppidei -lnppist -lnppc -lcublas -lcudart
endif
LIB_OBJ := $(LIB_C:%.c=$(B)/%.o) $(LIB_CU:%.cu=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)

NEWEST := $(lastword $(CUDA_ARCHS))
GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_$(NEWEST),code=compute_$(NEWEST)
LDLIBS := -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib -lcudart_static \
          $(DEFLATE_LIBS) -lpthread -ldl -lrt -lm -lstdc++ -fopenmp
CPPFLAGS += $(STB_CFLAGS) -MMD -MP

.PHONY: all deps demo test test-unit test-cli test-gpu install uninstall clean

all: gpufilt

# Installs missing Debian packages when run as root, else says what to run.
# SKIP_DEPS=1 skips this, for machines whose headers come from elsewhere
# (STB_CFLAGS, DEFLATE_LIBS in config.mk).
deps:
	@[ -n "$(SKIP_DEPS)" ] || sh scripts/deps.sh install

gpufilt: $(B)/src/main.o $(B)/libgf.a $(PEER_OBJ) | deps
	$(CC) $(CFLAGS) -o $@ $(B)/src/main.o $(PEER_OBJ) $(B)/libgf.a $(PEER_LIBS) $(LDLIBS)

$(B)/libgf.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# stb's code is not ours to warn about.
$(B)/third_party/stb.o: CFLAGS += -w

$(B)/%.o: %.cu | deps
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -std=c++17 -Xcompiler -Wall -MMD -MP -c -o $@ $<

demo: gpufilt
	sh samples/demo.sh

UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)

$(B)/unit/%: tests/unit/%.c tests/unit/common.h $(B)/libgf.a | deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libgf.a -lcmocka $(LDLIBS)

test-unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do echo "== $$t"; $$t || exit 1; done

test-cli: gpufilt
	bats tests/cli

test: test-unit test-cli

$(B)/test_gpu: tests/gpu/test_gpu.c $(B)/libgf.a | deps
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libgf.a $(LDLIBS)

# Every variant against the CPU reference, then again under compute-sanitizer;
# skips with a message where no GPU is usable.
test-gpu: $(B)/test_gpu gpufilt
	sh tests/gpu/run.sh $(B)/test_gpu

install: gpufilt
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 gpufilt $(DESTDIR)$(PREFIX)/bin/gpufilt
	install -m 644 man/gpufilt.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpufilt.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gpufilt $(DESTDIR)$(PREFIX)/share/man/man1/gpufilt.1

clean:
	rm -rf $(B) gpufilt

-include $(shell find $(B) -name '*.d' 2>/dev/null)
