# ncclforensic: see README.md. `make run` and `make test` are the quick start.
CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
PKGS := libpcre2-8 sqlite3 libarchive ncursesw libzstd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# CFLAGS is yours (optimisation, sanitizers); NF_CFLAGS is what the code needs.
CFLAGS ?= -O2 -g
NF_CFLAGS := -std=c11 -Wall -Wextra -D_GNU_SOURCE $(PKG_CFLAGS) \
	-DNF_GRAMMAR_INSTALL_DIR='"$(PREFIX)/share/ncclforensic/grammars"' \
	-DNF_EXT_INSTALL_PATH='"$(PREFIX)/lib/ncclforensic/ncclforensic.so"'
LDLIBS += $(PKG_LIBS) -lpthread -lm

BUILD ?= build
# sqlite_ext.c is the SQLite extension's entry point, not the binary's
SRCS := $(filter-out src/sqlite_ext.c,$(sort $(wildcard src/*.c)))
OBJS := $(SRCS:src/%.c=$(BUILD)/%.o)
BIN ?= ncclforensic
# the SQLite extension: the `lines` table and the SQL functions for any
# client (sqlite3, Python, DB Browser, Datasette), from the binary's own
# sources compiled again with -fPIC and src/sqlite_ext_api.h forced in (their
# sqlite3_* calls go through the client's API table; --no-undefined makes a
# call that bypasses it a link error)
EXT ?= $(BUILD)/ncclforensic.so
EXT_SRCS := sqlite_ext lines_vtab sql_functions line_dicts line_store timestamp util json_field line_prefix escape
EXT_OBJS := $(EXT_SRCS:%=$(BUILD)/ext/%.o)
EXT_LIBS := $(shell pkg-config --libs libpcre2-8 libzstd 2>/dev/null) -lm

.PHONY: all run test check-asan check-tsan deps deps-test clean bench fuzz fuzz-build install uninstall

all: $(BIN) $(EXT)

$(BIN): $(OBJS)
	$(CC) $(NF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(EXT): $(EXT_OBJS)
	$(CC) -shared $(CFLAGS) $(LDFLAGS) -Wl,--no-undefined -o $@ $(EXT_OBJS) $(EXT_LIBS)

$(BUILD)/ext/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(CC) $(NF_CFLAGS) $(CFLAGS) -fPIC -include src/sqlite_ext_api.h -MMD -c -o $@ $<

$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)
	$(CC) $(NF_CFLAGS) $(CFLAGS) -MMD -c -o $@ $<

$(BUILD):
	mkdir -p $(BUILD)

deps:
	@sh contrib/install-deps.sh

# what the tests need besides the build (cmocka, sqlite3, bsdtar, ...)
deps-test:
	@sh contrib/install-deps.sh --test

run: deps
	@$(MAKE) --no-print-directory $(BIN) $(EXT)
	./$(BIN) ingest testdata/corpus/stall.tar.gz -o $(BUILD)/sample.db
	@echo "next: ./$(BIN) report $(BUILD)/sample.db --format text (the report), ./$(BIN) tui $(BUILD)/sample.db (the timeline)"

test: deps-test
	@$(MAKE) --no-print-directory $(BIN) $(EXT)
	@sh tests/run.sh

# the scale benchmark: synthesizes 64 / 1,024 / 4,096-rank jobs from big and
# 1,024 / 16,384-rank faulty ones from stall, times ingest, analyze, report
# and the TUI against the bsdtar floor, writes BENCHMARKS.md
bench:
	@$(MAKE) --no-print-directory $(BIN)
	@NF_BIN=./$(BIN) sh bench/run.sh

# the tests under AddressSanitizer and UBSan; any report fails it. An empty
# report file is left by a process killed as it opened one (t_atomic kills
# ingests at random moments, its exit included): it says nothing, and goes.
# ThreadSanitizer: the load's threads (--jobs), on the ingest tests
check-tsan:
	@rm -rf build-tsan/*.o build-tsan/*.d
	@$(MAKE) --no-print-directory BUILD=build-tsan BIN=build-tsan/ncclforensic \
		CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" build-tsan/ncclforensic
	@rm -rf build-tsan/reports && mkdir -p build-tsan/reports
	@TSAN_OPTIONS=log_path=$(CURDIR)/build-tsan/reports/tsan \
	NF_BIN=build-tsan/ncclforensic NF_TSAN=1 NF_ONLY="t_jobs t_ingest t_lossless" sh tests/run.sh; rc=$$?; \
	find build-tsan/reports -type f -empty -delete; \
	if [ -n "$$(ls build-tsan/reports)" ]; then \
		echo "sanitizer reports (build-tsan/reports/):"; head -n 30 build-tsan/reports/*; exit 1; fi; \
	exit $$rc

check-asan:
	@rm -rf build-asan/*.o build-asan/*.d
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/ncclforensic \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" build-asan/ncclforensic
	@rm -rf build-asan/reports && mkdir -p build-asan/reports
	@ASAN_OPTIONS=log_path=$(CURDIR)/build-asan/reports/asan \
	UBSAN_OPTIONS=log_path=$(CURDIR)/build-asan/reports/ubsan:print_stacktrace=1 \
	NF_BIN=build-asan/ncclforensic NF_ASAN=1 sh tests/run.sh; rc=$$?; \
	find build-asan/reports -type f -empty -delete; \
	if [ -n "$$(ls build-asan/reports)" ]; then \
		echo "sanitizer reports (build-asan/reports/):"; head -n 12 build-asan/reports/*; exit 1; fi; \
	exit $$rc

# docs/report-example.png: the HTML report of the corpus job stall, drawn by
# headless Chromium (apt-get install chromium). Analysis tables the case lacks
# are filled from the test fixtures (tests/fixtures/report_*.sql).
.PHONY: screenshot
screenshot:
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) ingest testdata/corpus/stall.tar.gz -o $(BUILD)/report-example.db -q || test -f $(BUILD)/report-example.db
	./$(BIN) sql --write $(BUILD)/report-example.db "$$(cat tests/fixtures/report_common.sql tests/fixtures/report_stall.sql)" > /dev/null
	./$(BIN) report $(BUILD)/report-example.db --format html -o $(BUILD)/report-example.html
	d=$$(mktemp -d) && chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir=$$d --hide-scrollbars \
		--screenshot=$(CURDIR)/docs/report-example.png --window-size=1280,1000 \
		file://$(CURDIR)/$(BUILD)/report-example.html > /dev/null 2>&1; rc=$$?; rm -rf $$d; exit $$rc

clean:
	rm -rf build build-asan build-fuzz $(BIN)

# ---- fuzzing (clang + libFuzzer): `make fuzz` runs every harness of
# tests/fuzz/fuzz_*.c for FUZZ_SECONDS each (`make -j2 fuzz` two at a time);
# `make fuzz-build` only builds them; `make fuzz-run-NAME` runs one.
# Seeds: testdata/hostile/fuzz/NAME/ (past crashes are kept there too) and
# FUZZ_SEEDS_NAME; the growing corpus and any crash go to build-fuzz/.
# -malloc_limit_mb=8192: libarchive's cpio reader reserves a declared name
# size of up to 4 GiB before it reads the name (address space, not memory:
# docs/robustness.md); the RSS stays limited to 4 GiB.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_DIR := build-fuzz
FUZZ_CFLAGS := -std=c11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZERS := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_OBJS := $(filter-out $(FUZZ_DIR)/obj/main.o,$(SRCS:src/%.c=$(FUZZ_DIR)/obj/%.o))
FUZZ_SEEDS_line_split := testdata/corpus/nccl-tests
FUZZ_SEEDS_events := testdata/corpus/nccl-tests
FUZZ_SEEDS_grammar_load := grammars testdata/hostile/grammars
FUZZ_SEEDS_pickle := testdata/hostile/pickles
FUZZ_SEEDS_ingest := testdata/hostile/fuzz/line_split testdata/hostile/fuzz/archive testdata/hostile/pickles
FUZZ_MAXLEN_line_split := 16384
FUZZ_MAXLEN_events := 16384
FUZZ_MAXLEN_grammar_load := 16384
FUZZ_MAXLEN_pickle := 65536
FUZZ_MAXLEN_archive := 131072
FUZZ_MAXLEN_timestamp := 256
FUZZ_MAXLEN_ingest := 65536

$(FUZZ_DIR)/obj/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# an archive, so that each harness links only the modules it uses
$(FUZZ_DIR)/libnf.a: $(FUZZ_OBJS)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJS)

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libnf.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/libnf.a $(PKG_LIBS) -lpthread -lm

.SECONDARY: $(FUZZ_OBJS)

fuzz-build: $(FUZZERS:%=$(FUZZ_DIR)/fuzz_%)
	@ln -sfn ../grammars $(FUZZ_DIR)/grammars

fuzz-run-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus/$* $(FUZZ_DIR)/crashes
	@ln -sfn ../grammars $(FUZZ_DIR)/grammars
	@echo "fuzz_$*: $(FUZZ_SECONDS)s, log in $(FUZZ_DIR)/fuzz_$*.log"
	@./$(FUZZ_DIR)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=8192 \
		-max_len=$(or $(FUZZ_MAXLEN_$*),4096) -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/crashes/$*- $(FUZZ_DIR)/corpus/$* \
		$(wildcard testdata/hostile/fuzz/$* $(FUZZ_SEEDS_$*)) > $(FUZZ_DIR)/fuzz_$*.log 2>&1; \
	rc=$$?; grep -aE '^stat::number_of_executed_units|^Done' $(FUZZ_DIR)/fuzz_$*.log | sed 's/^/  fuzz_$*: /'; \
	grep -aoE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' $(FUZZ_DIR)/fuzz_$*.log | tail -n 1 | sed 's/^/  fuzz_$*: final /'; \
	if [ $$rc -ne 0 ]; then echo "fuzz_$*: FAILED (exit $$rc); see $(FUZZ_DIR)/fuzz_$*.log and $(FUZZ_DIR)/crashes/"; \
		grep -aE 'ERROR|SUMMARY|runtime error' $(FUZZ_DIR)/fuzz_$*.log | head -5; exit 1; fi

fuzz: $(FUZZERS:%=fuzz-run-%)

# ---- install: `make install PREFIX=/usr/local DESTDIR=/tmp/stage` puts the
# binary, the grammars and data (looked up relative to the binary:
# <prefix>/share/ncclforensic/{grammars,data}), the man page, shell completion,
# the log collector and the lnav format under DESTDIR/PREFIX; `make uninstall`
# (same variables) removes them.
BINDIR ?= $(PREFIX)/bin
NFDATADIR ?= $(PREFIX)/share/ncclforensic
NFLIBDIR ?= $(PREFIX)/lib/ncclforensic
MANDIR ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
INSTALL ?= install
INSTALL_CONTRIB := contrib/collect-logs.sh contrib/slurm-epilog.sh

install: $(BIN) $(EXT)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(NFLIBDIR) $(DESTDIR)$(NFDATADIR)/grammars $(DESTDIR)$(NFDATADIR)/contrib \
		$(DESTDIR)$(NFDATADIR)/lnav $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/ncclforensic
	$(INSTALL) -m 644 $(EXT) $(DESTDIR)$(NFLIBDIR)/ncclforensic.so
	@# rules of an older version (renamed files) must not stay: they would clash
	rm -f $(DESTDIR)$(NFDATADIR)/grammars/*.rules
	$(INSTALL) -m 644 grammars/*.rules $(DESTDIR)$(NFDATADIR)/grammars/
	@if [ -d data ]; then \
		echo "$(INSTALL) -m 644 data/* $(DESTDIR)$(NFDATADIR)/data/"; \
		$(INSTALL) -d $(DESTDIR)$(NFDATADIR)/data && \
		for f in data/*; do [ ! -f "$$f" ] || $(INSTALL) -m 644 "$$f" $(DESTDIR)$(NFDATADIR)/data/ || exit 1; done; \
	fi
	$(INSTALL) -m 644 man/ncclforensic.1 $(DESTDIR)$(MANDIR)/ncclforensic.1
	$(INSTALL) -m 644 contrib/ncclforensic.bash $(DESTDIR)$(BASHCOMPDIR)/ncclforensic
	$(INSTALL) -m 644 contrib/_ncclforensic $(DESTDIR)$(ZSHCOMPDIR)/_ncclforensic
	$(INSTALL) -m 755 $(INSTALL_CONTRIB) $(DESTDIR)$(NFDATADIR)/contrib/
	$(INSTALL) -m 644 contrib/lnav/ncclforensic.json $(DESTDIR)$(NFDATADIR)/lnav/

uninstall:
	rm -f $(DESTDIR)$(NFLIBDIR)/ncclforensic.so
	rmdir $(DESTDIR)$(NFLIBDIR) 2>/dev/null || :
	rm -f $(DESTDIR)$(BINDIR)/ncclforensic $(DESTDIR)$(MANDIR)/ncclforensic.1 \
		$(DESTDIR)$(BASHCOMPDIR)/ncclforensic $(DESTDIR)$(ZSHCOMPDIR)/_ncclforensic
	rm -f $(DESTDIR)$(NFDATADIR)/grammars/*.rules $(DESTDIR)$(NFDATADIR)/data/* \
		$(INSTALL_CONTRIB:contrib/%=$(DESTDIR)$(NFDATADIR)/contrib/%) $(DESTDIR)$(NFDATADIR)/lnav/ncclforensic.json
	@for d in grammars data contrib lnav; do rmdir "$(DESTDIR)$(NFDATADIR)/$$d" 2>/dev/null || :; done; \
		rmdir "$(DESTDIR)$(NFDATADIR)" 2>/dev/null || :

-include $(OBJS:.o=.d) $(EXT_OBJS:.o=.d)
