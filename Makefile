# btfcanon — build, test, install.
#
#   make            build build/btfcanon
#   make check      build and run every test (unit, property, real inputs),
#                   its parts side by side (CHECK_JOBS=N or make -jN: how many)
#   make asan       the tests under AddressSanitizer + UBSan (build-asan/)
#   make tsan       the tests and tools under ThreadSanitizer (build-tsan/)
#   make tsan-check the parallel encoder's tests under ThreadSanitizer
#   make fuzz       build and run the fuzz targets (tests/fuzz/fuzz.mk)
#   make install    install into $(DESTDIR)$(PREFIX)
#   make kernel-build-check  Linux 6.12 built with btfcanon-pahole and checked
#                   (docs/kernel-build.md; about 10-25 minutes, needs root)

PREFIX   ?= /usr/local
DESTDIR  ?=
VERSION  := 0.1.0
BUILD    ?= build

CC       ?= cc
PKGS     := libbpf libelf libdw
# the kernel image and package readers (archive/kimage.c ...): Debian's libraries;
# the archive's body (zstd) and checksum (zlib) too
PKGS     += zlib liblzma libzstd liblz4 lzo2
# libarchive: compiled against, not linked. archive/libarchive.c dlopen()s
# it at the first package read (its chain of libraries costs ~3 ms at every
# start); dlopen is in libc (glibc 2.34 and later: no -ldl).
LA_CFLAGS := $(shell pkg-config --cflags libarchive)
# CFLAGS is the user's (optimization, sanitizers; may be set on the command
# line); BC_CFLAGS holds what the code needs to build at all and is always
# applied on top of it. CPPFLAGS and LDFLAGS are the user's too (the Debian
# package's dpkg-buildflags: -D_FORTIFY_SOURCE=2, -z relro -z now).
CFLAGS   ?= -O2 -g
BC_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
            -DBTFCANON_VERSION=\"$(VERSION)\" \
            $(shell pkg-config --cflags $(PKGS)) $(LA_CFLAGS)
ALL_CFLAGS = $(BC_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDLIBS   += $(shell pkg-config --libs $(PKGS)) -lbz2 -lpthread
CHECK_CFLAGS := $(shell pkg-config --cflags check)
CHECK_LIBS   := $(shell pkg-config --libs check)

LIB_SRCS := $(wildcard canon/*.c sort/*.c encode/*.c diff/*.c header/*.c deps/*.c archive/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TOOL_SRCS := tools/btfcanon.c
TEST_SRCS := $(wildcard tests/*.c) tests/fuzz/targets.c
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o)

all: $(BUILD)/btfcanon $(BUILD)/btfcanon-pahole $(BUILD)/dwarf-walk \
	$(BUILD)/btf-extract

$(BUILD)/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%.o: tests/%.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/libbtfcanon.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

# the encode driver both commands run (tools/encode_job.c)
TOOL_OBJS := $(BUILD)/tools/encode_job.o

$(BUILD)/btfcanon: $(BUILD)/tools/btfcanon.o $(TOOL_OBJS) $(BUILD)/libbtfcanon.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The baseline the encoder is measured against: a bare libdw walk.
$(BUILD)/dwarf-walk: $(BUILD)/tools/dwarf-walk.o
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The kernels' own BTF, unsorted, for tools/bench-archive.sh's baselines.
$(BUILD)/btf-extract: $(BUILD)/tools/btf-extract.o $(BUILD)/libbtfcanon.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The cutter of tests/data/header's kernels (tests/data/README.md); not in all.
$(BUILD)/btf-cut: $(BUILD)/tools/btf-cut.o
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The maker of BTF with kinds btfcanon does not know, for the tests (reads
# bytes only: no library code); make check builds it beside btfcanon.
$(BUILD)/btf-add-kinds: tests/tools/btf-add-kinds.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# The drop-in for pahole -J in the kernel build; encodes in its own process.
$(BUILD)/btfcanon-pahole: $(BUILD)/tools/btfcanon-pahole.o $(TOOL_OBJS) \
		$(BUILD)/libbtfcanon.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# --wrap: tests/test_faults.c fails the nth allocation of the code under test
$(BUILD)/btfcanon-tests: $(TEST_OBJS) $(BUILD)/libbtfcanon.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc \
		-o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# make check runs its parts side by side: each suite of btfcanon-tests,
# each case that runs on its own (`btfcanon-tests --list`, longest first),
# and each script, in a process of its own. They share nothing but the
# run's cache, $(CHECK_DIR)/cache (testutil.h: test_cached()): what several
# cases read, a fixture compiled or a real kernel encoded, made once per
# run by the first to need it; emptied here at every start, so never stale.
# A part's output is held in $(CHECK_DIR)/PART.log and printed whole when
# it ends (tests/check-part.sh); a summary follows, and a failed part fails
# the run. As many parts at once as there are CPUs, or as make -jN says.
# CHECK_ONLY="deps cli.sh ...": only those parts (the same plumbing).
# CK_DEFAULT_TIMEOUT: the real-kernel cases sort 127k-type graphs many times.
CHECK_DIR     = $(BUILD)/check
CHECK_SCRIPTS := pahole-dropin.sh cli.sh images.sh
CHECK_JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_ONLY    ?=

check: $(BUILD)/btfcanon $(BUILD)/btfcanon-pahole $(BUILD)/btfcanon-tests \
		$(BUILD)/btf-add-kinds
	@rm -rf $(CHECK_DIR) && mkdir -p $(CHECK_DIR)/cache
	@start=$$(date +%s); \
	parts="$(or $(CHECK_ONLY),$(CHECK_SCRIPTS) $$($(BUILD)/btfcanon-tests --list))" || exit 2; \
	$(MAKE) --no-print-directory -k -Otarget \
		$(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) \
		CHECK_PARTS="$$parts" check-parts; \
	tests/check-summary.sh $(CHECK_DIR) $$start $$parts

check-parts: $(addprefix check-part/,$(CHECK_PARTS))

check-part/%.sh: FORCE
	@tests/check-part.sh $(CHECK_DIR) $*.sh \
		env BTFCANON=$(BUILD)/btfcanon tests/$*.sh

check-part/%: FORCE
	@tests/check-part.sh $(CHECK_DIR) $* \
		env CK_DEFAULT_TIMEOUT=600 BTFCANON=$(BUILD)/btfcanon \
		BTFCANON_TEST_CACHE=$(abspath $(CHECK_DIR))/cache \
		$(BUILD)/btfcanon-tests --part $*

FORCE:

SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer

# Any sanitizer report fails the run: UBSan does not recover.
# BTFCANON_SANITIZED: the tests skip what measures memory (peak RSS).
asan:
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	BTFCANON_SANITIZED=1 \
	$(MAKE) BUILD=build-asan \
		CFLAGS="$(SAN_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all" \
		check

# Builds only; the encoder's threads are what it is for:
#   build-tsan/btfcanon encode -j2 VMLINUX -o /dev/null
tsan:
	$(MAKE) BUILD=build-tsan CFLAGS="$(SAN_CFLAGS) -fsanitize=thread" \
		build-tsan/btfcanon build-tsan/btfcanon-tests build-tsan/dwarf-walk

# The parallel encoder under ThreadSanitizer (CI): the encode suite (the
# fixtures at -j1..64, shuffled unit orders, the reduction's parallel loops
# and merge), canon's parallel sort and refinement rounds on random graphs
# cut into many tasks (props, parallel), the faults suite's worker errors
# at -j8, and the 6.12 vmlinux at -j4 and -j16 (chunks, groups of chunks,
# the parallel merge, canon's parallel steps), which must give the same
# bytes; an archive of it read back (its checksum on a second thread).
# header's readers of kernel files (-j4 on the four small kernels, the
# same bytes as -j1). Any report fails the run (exitcode 66). No
# suppressions.
TSAN_VMLINUX ?= /usr/lib/debug/boot/vmlinux-6.12.117+deb12-cloud-amd64
tsan-check: tsan
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 CK_DEFAULT_TIMEOUT=600 \
	BTFCANON_SANITIZED=1 BTFCANON=build-tsan/btfcanon CK_RUN_SUITE=encode \
		build-tsan/btfcanon-tests
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 CK_DEFAULT_TIMEOUT=600 \
	BTFCANON_SANITIZED=1 BTFCANON=build-tsan/btfcanon CK_RUN_SUITE=faults \
	CK_RUN_CASE=worker_error build-tsan/btfcanon-tests
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 CK_DEFAULT_TIMEOUT=600 \
	BTFCANON_SANITIZED=1 CK_RUN_SUITE=props CK_RUN_CASE=parallel \
		build-tsan/btfcanon-tests
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/btfcanon header -j4 \
		$(addprefix --kernel ,$(wildcard tests/data/header/*.btf)) \
		-o build-tsan/header-j4.h
	build-tsan/btfcanon header -j1 \
		$(addprefix --kernel ,$(wildcard tests/data/header/*.btf)) \
		-o build-tsan/header-j1.h
	cmp build-tsan/header-j1.h build-tsan/header-j4.h
	if [ -r $(TSAN_VMLINUX) ]; then \
		for j in 4 16; do \
			TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/btfcanon \
				encode -j$$j $(TSAN_VMLINUX) -o build-tsan/vmlinux-j$$j.btf || exit 1; \
		done; \
		cmp build-tsan/vmlinux-j4.btf build-tsan/vmlinux-j16.btf || exit 1; \
		TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/btfcanon \
			archive create build-tsan/k.bca build-tsan/vmlinux-j4.btf \
			--name k && \
		TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/btfcanon \
			archive extract build-tsan/k.bca k -o build-tsan/k.btf && \
		build-tsan/btfcanon sort build-tsan/vmlinux-j4.btf \
			-o build-tsan/k.sorted && \
		cmp build-tsan/k.btf build-tsan/k.sorted; \
	else \
		echo "tsan-check: $(TSAN_VMLINUX) absent: kernel run skipped"; \
	fi

# btfcanon(1) documents btfcanon-pahole too; btfcanon-pahole(1) links to it.
# dwarf-walk, a benchmark baseline, is not installed. debian/rules uses this.
install: $(BUILD)/btfcanon $(BUILD)/btfcanon-pahole
	install -D -m 0755 $(BUILD)/btfcanon $(DESTDIR)$(PREFIX)/bin/btfcanon
	install -D -m 0755 $(BUILD)/btfcanon-pahole $(DESTDIR)$(PREFIX)/bin/btfcanon-pahole
	install -D -m 0644 tools/btfcanon.1 $(DESTDIR)$(PREFIX)/share/man/man1/btfcanon.1
	ln -sf btfcanon.1 $(DESTDIR)$(PREFIX)/share/man/man1/btfcanon-pahole.1

# Not in check nor CI: two kernel builds.
kernel-build-check: $(BUILD)/btfcanon $(BUILD)/btfcanon-pahole
	BTFCANON_PAHOLE=$(abspath $(BUILD))/btfcanon-pahole tools/kernel-build/run.sh 6.12

include tests/fuzz/fuzz.mk

clean:
	rm -rf build build-asan build-tsan build-fuzz build-deb

.PHONY: all check check-parts FORCE asan tsan tsan-check install clean kernel-build-check
