# btfcanon — build, test, install.
#
#   make            build build/btfcanon
#   make check      build and run every test (unit, property, real inputs)
#   make asan       the tests under AddressSanitizer + UBSan
#   make install    install into $(DESTDIR)$(PREFIX)

PREFIX   ?= /usr/local
DESTDIR  ?=
VERSION  := 0.1.0
BUILD    ?= build

CC       ?= cc
PKGS     := libbpf libelf libdw
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
            -DBTFCANON_VERSION=\"$(VERSION)\" \
            $(shell pkg-config --cflags $(PKGS))
LDLIBS   += $(shell pkg-config --libs $(PKGS)) -lpthread
CHECK_CFLAGS := $(shell pkg-config --cflags check)
CHECK_LIBS   := $(shell pkg-config --libs check)

LIB_SRCS := $(wildcard canon/*.c sort/*.c encode/*.c diff/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TOOL_SRCS := tools/btfcanon.c
TEST_SRCS := $(wildcard tests/*.c)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o)

all: $(BUILD)/btfcanon

$(BUILD)/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%.o: tests/%.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/libbtfcanon.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/btfcanon: $(BUILD)/tools/btfcanon.o $(BUILD)/libbtfcanon.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/btfcanon-tests: $(TEST_OBJS) $(BUILD)/libbtfcanon.a
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# CK_DEFAULT_TIMEOUT: the real-kernel cases sort 127k-type graphs many times.
check: $(BUILD)/btfcanon $(BUILD)/btfcanon-tests
	CK_DEFAULT_TIMEOUT=600 BTFCANON=$(BUILD)/btfcanon \
		$(BUILD)/btfcanon-tests
	BTFCANON=$(BUILD)/btfcanon tests/cli.sh

asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" check

install: $(BUILD)/btfcanon
	install -D -m 0755 $(BUILD)/btfcanon $(DESTDIR)$(PREFIX)/bin/btfcanon
	install -D -m 0644 tools/btfcanon.1 $(DESTDIR)$(PREFIX)/share/man/man1/btfcanon.1

clean:
	rm -rf build build-asan

.PHONY: all check asan install clean
