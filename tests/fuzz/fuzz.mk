# Fuzz targets (libFuzzer), included by the top-level Makefile.
#
#   make fuzz                    build, then run each target FUZZ_SECONDS (60)
#   make fuzz FUZZ_TARGETS=sort  one target
#   make fuzz-build              build build-fuzz/fuzz_* only
#
# The library is rebuilt with clang in build-fuzz/ with coverage
# instrumentation, ASan and UBSan. Seeds live in tests/fuzz/corpus/<target>/
# (read only); what a run finds goes to build-fuzz/corpus/<target>/, crashes
# to build-fuzz/crashes/. See FUZZING.md.

FUZZ_TARGETS ?= sort dump diff btf_elf encode bpf_object relocate kernel_file \
	archive kimage package
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build-fuzz
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

# the bodies (targets.c) are shared with tests/test_fuzzfound.c
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/tests/fuzz/targets.o \
		$(FUZZ_BUILD)/libbtfcanon.a
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(filter %.o,$^) $(FUZZ_BUILD)/libbtfcanon.a $(LDLIBS)

# fuzz_encode mutates inside the DWARF sections, not the whole ELF file
$(FUZZ_BUILD)/fuzz_encode: $(FUZZ_BUILD)/tests/fuzz/dwarf_mutator.o

fuzz-build:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CFLAGS="$(FUZZ_CFLAGS)" \
		$(FUZZ_BINS)

fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build
