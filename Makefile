# ncclforensic: see README.md. `make run` and `make test` are the quick start.
CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
PKGS := libpcre2-8 sqlite3 libarchive ncursesw libzstd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -D_GNU_SOURCE $(PKG_CFLAGS) \
	-DNF_GRAMMAR_INSTALL_DIR='"$(PREFIX)/share/ncclforensic/grammars"'
LDLIBS += $(PKG_LIBS) -lpthread -lm

BUILD ?= build
SRCS := $(sort $(wildcard src/*.c))
OBJS := $(SRCS:src/%.c=$(BUILD)/%.o)
BIN ?= ncclforensic

.PHONY: all run test check-asan deps clean bench fuzz install uninstall

all: $(BIN)

$(BIN): $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)
	$(CC) $(CFLAGS) -MMD -c -o $@ $<

$(BUILD):
	mkdir -p $(BUILD)

deps:
	@sh contrib/install-deps.sh

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) ingest testdata/corpus/stall.tar.gz -o $(BUILD)/sample.db
	./$(BIN) report $(BUILD)/sample.db --format text

test: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh tests/run.sh

check-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/ncclforensic \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" build-asan/ncclforensic
	@NF_BIN=build-asan/ncclforensic NF_ASAN=1 sh tests/run.sh

clean:
	rm -rf build build-asan $(BIN)

-include $(OBJS:.o=.d)
