# Fuzz targets (libFuzzer), included by the top-level Makefile.
#
#   make fuzz                    build, then run each target FUZZ_SECONDS (60)
#   make fuzz FUZZ_TARGETS=sort  one target
#   make fuzz-build              build build-fuzz/fuzz_* only
#   make fuzz-lock               the writers' lock under SIGKILL only
#
# The library is rebuilt with clang in build-fuzz/ with coverage
# instrumentation, ASan and UBSan. Seeds live in tests/fuzz/corpus/<target>/
# (read only); what a run finds goes to build-fuzz/corpus/<target>/, crashes
# to build-fuzz/crashes/. See FUZZING.md.
#
# `lock` is not a libFuzzer target: the archive suite's lockkill case
# (tests/test_archive_lock.c) kills writers of an archive at random
# moments for FUZZ_SECONDS, with the normal build's binaries; a fresh seed
# each run, printed, and FUZZ_LOCK_SEED=N runs one again.

FUZZ_TARGETS ?= sort dump diff btf_elf encode bpf_object relocate kernel_file \
	archive kimage package kmod slim lock
FUZZ_SECONDS ?= 60
FUZZ_LOCK_SEED ?= 0
FUZZ_LIBFUZZER := $(filter-out lock,$(FUZZ_TARGETS))
FUZZ_BUILD   := build-fuzz
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_BINS    := $(FUZZ_LIBFUZZER:%=$(FUZZ_BUILD)/fuzz_%)

# the bodies (targets.c) are shared with tests/test_fuzzfound.c
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/tests/fuzz/targets.o \
		$(FUZZ_BUILD)/libbtfcanon.a
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(filter %.o,$^) $(FUZZ_BUILD)/libbtfcanon.a $(LDLIBS)

# fuzz_encode mutates inside the DWARF sections, not the whole ELF file
$(FUZZ_BUILD)/fuzz_encode: $(FUZZ_BUILD)/tests/fuzz/dwarf_mutator.o

fuzz-build:
	$(if $(FUZZ_BINS),$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
		CFLAGS="$(FUZZ_CFLAGS)" $(FUZZ_BINS))

# CK_TIMEOUT_MULTIPLIER: the case's 120 s timeout, raised for long runs
fuzz-lock: $(BUILD)/btfcanon $(BUILD)/btfcanon-tests
	BTFCANON=$(BUILD)/btfcanon CK_RUN_SUITE=archive CK_RUN_CASE=lockkill \
	BTFCANON_LOCK_ITERS=4000000000 BTFCANON_LOCK_SECONDS=$(FUZZ_SECONDS) \
	BTFCANON_LOCK_SEED=$(FUZZ_LOCK_SEED) \
	CK_TIMEOUT_MULTIPLIER=$$(($(FUZZ_SECONDS) / 60 + 2)) \
		$(BUILD)/btfcanon-tests

fuzz: fuzz-build
	$(if $(FUZZ_LIBFUZZER),tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_LIBFUZZER))
	$(if $(filter lock,$(FUZZ_TARGETS)),$(MAKE) fuzz-lock)

.PHONY: fuzz fuzz-build fuzz-lock
