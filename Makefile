# karte: one Makefile for the daemon, the analysis library, the tools and
# every test. `make run` and `make test` install what is missing first.

BUILD   ?= build
CC      ?= cc
PKGS    := libmicrohttpd jansson yajl sqlite3 libpq nettle gsl cairo pangocairo pixman-1 libcurl \
           libarchive libxml-2.0 zlib libsystemd
WARN    := -Wall -Wextra -Wpedantic -Wmissing-prototypes -Wstrict-prototypes -Wshadow \
           -Wvla -Wwrite-strings -Wformat=2 -Werror
CFLAGS  ?= -O2 -g
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined
CFLAGS  := -O1 -g -fno-omit-frame-pointer $(SANFLAGS) -fno-sanitize-recover=all
LDFLAGS += $(SANFLAGS)
endif
# server/ in rooms by role, each a static library built from every .c in
# its folder (one source list per folder: a new file needs no line here),
# linked top room first: api (handlers) over track (regressions, webhook)
# and http over store, import and render, all over core (shared with the
# collectors) and libkarte_analysis. Includes are paths from server/ or the
# top ("store/store.h", "analysis/isoeff.h"); tests/layers.py refuses one
# that reaches a room above its own.
.DEFAULT_GOAL := all
ROOMS        := api track http store import render core
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -MMD -MP -Iserver -I. \
             $(shell pkg-config --cflags $(PKGS))
# api/sort.cc, karted's one C++ file (the standard library's sort of
# doubles), is in no library the collectors link: they link no C++ runtime
CXX     ?= c++
LIBS    = $(shell pkg-config --libs $(PKGS)) -lcsv -lpthread -lm
ALL_CXXFLAGS = -std=c++17 -D_GNU_SOURCE -Wall -Wextra -Werror $(CFLAGS) -fno-exceptions -fno-rtti -MMD -MP -Iserver -I.

room_src = $(wildcard server/$(1)/*.c)
room_obj = $(patsubst %.c,$(BUILD)/%.o,$(call room_src,$(1))) $(patsubst %.cc,$(BUILD)/%.o,$(wildcard server/$(1)/*.cc))
room_lib = $(BUILD)/libkarte_$(1).a
define ROOM_RULE
$(call room_lib,$(1)): $$(call room_obj,$(1)) $(2)
	$$(AR) rcs $$@ $$^
endef
$(foreach r,$(filter-out store api,$(ROOMS)),$(eval $(call ROOM_RULE,$(r),)))
$(eval $(call ROOM_RULE,store,$(BUILD)/server/schema_sql.o))
$(eval $(call ROOM_RULE,api,$(BUILD)/server/openapi_json.o))
SERVER_LIBS := $(foreach r,$(ROOMS),$(call room_lib,$(r)))
KARTED     := $(BUILD)/karted
KARTE      := $(BUILD)/karte

# libkarte_analysis: pure C, no I/O (analysis/)
ANALYSIS_SRC := $(wildcard analysis/*.c)
ANALYSIS_LIB := $(BUILD)/libkarte_analysis.a
GSL_LIBS      = $(shell pkg-config --libs gsl)

TESTS      := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
TEST_BINS  := $(TESTS:%=$(BUILD)/tests/%)

# collectors: karte-collect (libcurl, over libkarte_core) and the region
# library (C, Fortran; MPI when mpicc is there), which builds on its own
# (make region): it links nothing of karte's.
COLLECT     := $(BUILD)/karte-collect
REGION_LIB  := $(BUILD)/libkarte_region.a
REGION_MPI  := $(BUILD)/libkarte_region_mpi.a
REGION_SO   := $(BUILD)/libkarte_region.so
REGION_MPI_SO := $(BUILD)/libkarte_region_mpi.so
HAVE_MPICC  := $(shell command -v mpicc 2>/dev/null)

.PHONY: all region run check test test-docs test-unit test-integration test-browser test-fuzz fuzz asan bench bench-deps demo gallery install clean deps deps-run help

all: $(KARTED) $(KARTE) $(COLLECT) region

region: $(REGION_LIB) $(REGION_SO) $(if $(HAVE_MPICC),$(REGION_MPI) $(REGION_MPI_SO))

help:
	@echo "make            build $(KARTED)"
	@echo "make run        install dependencies, build, start karted on 127.0.0.1:8080"
	@echo "make test       install dependencies, run every test (plain and sanitizer builds)"
	@echo "make check      the quick loop: docs, unit, integration and http cases on SQLite (minutes)"
	@echo "make asan       the unit and integration tests under ASan+UBSan only"
	@echo "make bench      the benchmarks (figures printed, see README)"
	@echo "make fuzz       every fuzz target for FUZZ_SECONDS each (make fuzz FUZZ_SECONDS=600)"
	@echo "make demo       karted with example data on data/demo.db: every chart at once"
	@echo "make gallery    every report for the example data in build/gallery/index.html"
	@echo "make install    install under PREFIX (default /usr/local; DESTDIR for staging)"

# what each command installs when it is missing (deploy/install-deps.sh):
# make run, demo and gallery what building and running take; make test
# that and the test tool chain; make bench also the benchmarks' own.
deps:
	@./deploy/install-deps.sh build run test

deps-run:
	@./deploy/install-deps.sh build run

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -c $< -o $@

$(BUILD)/server/schema_sql.c: schema/gen.sh $(sort $(wildcard schema/[0-9]*.sql)) $(sort $(wildcard schema/pg/[0-9]*.sql))
	@mkdir -p $(dir $@)
	{ sh schema/gen.sh schema_migrations $(sort $(wildcard schema/[0-9]*.sql)) && \
	  sh schema/gen.sh schema_pg_migrations $(sort $(wildcard schema/pg/[0-9]*.sql)); } > $@.tmp
	mv $@.tmp $@

$(BUILD)/server/schema_sql.o: $(BUILD)/server/schema_sql.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# docs/openapi.json as bytes karted serves (GET /api/v1/openapi.json)
$(BUILD)/server/openapi_json.c: docs/openapi.json
	@mkdir -p $(dir $@)
	{ echo '/* generated by the Makefile from docs/openapi.json; do not edit */'; \
	  echo '#include <stddef.h>'; \
	  echo 'extern const unsigned char openapi_json[];'; echo 'extern const size_t openapi_json_len;'; \
	  echo 'const unsigned char openapi_json[] = {'; \
	  od -An -v -tu1 $< | sed -e 's/^ *//' -e 's/  */,/g' -e 's/$$/,/'; \
	  echo '0};'; echo 'const size_t openapi_json_len = sizeof(openapi_json) - 1;'; } > $@.tmp
	mv $@.tmp $@

$(BUILD)/server/openapi_json.o: $(BUILD)/server/openapi_json.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(ANALYSIS_LIB): $(ANALYSIS_SRC:%.c=$(BUILD)/%.o)
	$(AR) rcs $@ $^

$(KARTED): $(BUILD)/server/main.o $(SERVER_LIBS) $(ANALYSIS_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(GSL_LIBS) -lstdc++

$(COLLECT): $(patsubst %.c,$(BUILD)/%.o,$(wildcard collectors/collect*.c)) $(BUILD)/collectors/rapl.o $(call room_lib,core)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) -lcurl -lcsv

$(REGION_LIB): $(BUILD)/collectors/region.o $(BUILD)/collectors/rapl.o
	$(AR) rcs $@ $^

# the MPI build of the same source: rank-aware, MPI_Finalize writes the run
$(BUILD)/collectors/region_mpi.o: collectors/region.c
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) mpicc $(ALL_CFLAGS) -DKARTE_MPI -c $< -o $@

$(REGION_MPI): $(BUILD)/collectors/region_mpi.o $(BUILD)/collectors/rapl.o
	$(AR) rcs $@ $^

# the shared libraries, from position-independent objects of the same source
$(BUILD)/collectors/pic/%.o: collectors/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@
$(BUILD)/collectors/pic/region_mpi.o: collectors/region.c
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) mpicc $(ALL_CFLAGS) -fPIC -DKARTE_MPI -c $< -o $@
$(REGION_SO): $(BUILD)/collectors/pic/region.o $(BUILD)/collectors/pic/rapl.o
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libkarte_region.so -o $@ $^ -lpthread -lm
$(REGION_MPI_SO): $(BUILD)/collectors/pic/region_mpi.o $(BUILD)/collectors/pic/rapl.o
	OMPI_CC=$(CC) mpicc $(LDFLAGS) -shared -Wl,-soname,libkarte_region_mpi.so -o $@ $^ -lpthread -lm

$(KARTE): $(BUILD)/server/cli/karte.o $(call room_lib,import) $(call room_lib,render) $(call room_lib,core) \
         $(ANALYSIS_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(GSL_LIBS) -lcsv -lotf2

$(BUILD)/tests/test_isoeff: $(BUILD)/tests/iso_oracle.o

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(SERVER_LIBS) $(ANALYSIS_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(GSL_LIBS) -lotf2 -lstdc++ $(shell pkg-config --libs cmocka)

# karted's own defaults (127.0.0.1:8080, data/karte.db), so KARTE_LISTEN,
# KARTE_DB and the other KARTE_* settings of the environment apply.
run: deps-run $(KARTED)
	./$(KARTED) serve

test-unit: $(TEST_BINS) $(COLLECT) $(REGION_SO) $(if $(HAVE_MPICC),$(REGION_MPI_SO))
	@set -e; for t in $(TEST_BINS); do echo "== $$t"; ./$$t; done
	python3 tests/linkage.py $(COLLECT) $(REGION_SO) $(if $(HAVE_MPICC),$(REGION_MPI_SO))

test-integration: $(KARTED) $(KARTE) $(COLLECT) $(REGION_LIB) $(REGION_MPI) $(BUILD)/tests/otf2_trace
	python3 tests/integration.py --karted $(KARTED) --karte $(KARTE) --otf2-writer $(BUILD)/tests/otf2_trace \
	    --cflags="$(SANFLAGS)"
	python3 tests/http_cases.py --karted $(KARTED)
	python3 tests/imports.py --karted $(KARTED)
	python3 tests/realfiles.py --karted $(KARTED)
	python3 tests/pg_cluster.py --check
	python3 tests/pg_stall.py --karted $(KARTED)
	python3 tests/integration.py --backend postgresql --karted $(KARTED) --karte $(KARTE) \
	    --otf2-writer $(BUILD)/tests/otf2_trace --cflags="$(SANFLAGS)"
	python3 tests/http_cases.py --backend postgresql --karted $(KARTED)
	python3 tests/imports.py --backend postgresql --karted $(KARTED)
	python3 tests/scaleout.py --karted $(KARTED) --collect $(COLLECT)
	python3 tests/collectors.py --build $(BUILD) --cflags="$(SANFLAGS)"
	KARTE_BUILD=$(BUILD) PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python_client.py
	python3 tests/abuse.py --karted $(KARTED) $(if $(SANFLAGS),--sanitizer)

# Fuzzing (clang's libFuzzer with ASan+UBSan): a target for each parser
# and handler that takes outside bytes. `make test` runs each for
# FUZZ_SECONDS (10); `make fuzz FUZZ_SECONDS=N` for as long as asked. Seeds
# are in tests/fuzz/corpus/TARGET, the dictionary in tests/fuzz/karte.dict;
# what a run finds is kept in build/fuzz/corpus/TARGET.
FUZZ_SECONDS ?= 10
IMPORT_FORMATS := extrap-text extrap-jsonl extrap-json talpas cali caliper-json geopm-report csv ndjson \
                  cube extrap-experiment thicket-json
FUZZ_TARGETS := fuzz_run fuzz_run_agree fuzz_api fuzz_karte fuzz_collect fuzz_otf2 $(IMPORT_FORMATS:%=fuzz_import_%)
FUZZ_PKGS := jansson yajl sqlite3 libpq cairo pangocairo gsl nettle pixman-1 libarchive libxml-2.0 zlib
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c11 \
             -D_GNU_SOURCE -Iserver -I. -Itests/fuzz \
             $(shell pkg-config --cflags $(FUZZ_PKGS))
FUZZ_LIBS = build/fuzz/lsan_default.o build/fuzz/sort.o $(shell pkg-config --libs $(FUZZ_PKGS)) -lstdc++ -lpthread -lm
# LeakSanitizer's suppressions, the same for `make asan` and the fuzzers
# (which also carry them inside: build/fuzz/lsan_default.c)
LSAN_ENV := LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

build/fuzz/lsan_default.o: tests/lsan.supp tests/fuzz/lsan_default.sh
	@mkdir -p $(dir $@)
	sh tests/fuzz/lsan_default.sh tests/lsan.supp > build/fuzz/lsan_default.c
	clang -c -O1 -o $@ build/fuzz/lsan_default.c

# api/sort.cc, the one C++ file, instrumented as the C around it
build/fuzz/sort.o: server/api/sort.cc server/api/sort.h
	@mkdir -p $(dir $@)
	clang++ -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -std=c++17 \
	    -fno-exceptions -fno-rtti -Iserver -c -o $@ $<

$(FUZZ_TARGETS:%=build/fuzz/%): build/fuzz/lsan_default.o build/fuzz/sort.o
FUZZ_API_SRC := $(call room_src,core) $(call room_src,store) server/http/resp.c server/http/req_common.c $(call room_src,track) \
                $(filter-out server/api/api_import.c server/api/api_static.c,$(call room_src,api)) \
                $(call room_src,render) $(ANALYSIS_SRC)

build/fuzz/fuzz_run: tests/fuzz/fuzz_run.c server/core/run.c server/core/dconv.c server/core/utf8.c server/core/kerr.c server/core/xalloc.c server/core/run.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) $(FUZZ_LIBS)

build/fuzz/fuzz_run_agree: tests/fuzz/fuzz_run_agree.c $(call room_src,core)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) $(FUZZ_LIBS)

build/fuzz/fuzz_api: tests/fuzz/fuzz_api.c tests/fuzz/req_mem.c $(FUZZ_API_SRC) $(BUILD)/server/schema_sql.c \
                    $(BUILD)/server/openapi_json.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) $(FUZZ_LIBS) -lcurl

build/fuzz/fuzz_karte: tests/fuzz/fuzz_karte.c server/cli/karte.c $(call room_src,render) $(call room_src,core) \
                       server/import/otf2in.c $(ANALYSIS_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_karte.c $(filter-out server/cli/karte.c tests/%,$(filter %.c,$^)) \
	    $(FUZZ_LIBS) -lcsv -lotf2

build/fuzz/fuzz_collect: tests/fuzz/fuzz_collect.c collectors/collect_runs.c collectors/collect_send.c collectors/rapl.c \
                         server/core/csvsafe.c server/core/slurp.c server/core/num.c server/core/jsonw.c \
                         server/core/run.c server/core/dconv.c server/core/utf8.c server/core/kerr.c server/core/xalloc.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) $(FUZZ_LIBS) -lcurl -lcsv

# one target per import reader, from one harness
IMPORT_SRC := server/core/csvsafe.c server/core/num.c server/core/dconv.c server/core/jsonw.c \
              $(filter-out server/import/otf2in.c,$(call room_src,import))
build/fuzz/fuzz_import_%: tests/fuzz/fuzz_import.c $(IMPORT_SRC) server/core/run.c server/core/utf8.c server/core/kerr.c \
                          server/core/xalloc.c server/import/import.h server/import/import_xp.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -DIMPORT_FORMAT='"$*"' -o $@ $(filter %.c,$^) $(FUZZ_LIBS) -lcsv

build/fuzz/fuzz_otf2: tests/fuzz/fuzz_otf2.c tests/otf2/otf2_trace.c server/import/otf2in.c server/core/kerr.c server/core/xalloc.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_otf2.c server/import/otf2in.c server/core/kerr.c server/core/xalloc.c \
	    $(FUZZ_LIBS) -lotf2

# Each target for FUZZ_SECONDS; the executions of all are added up.
test-fuzz fuzz: $(FUZZ_TARGETS:%=build/fuzz/%)
	@total=0; failed=0; for t in $(FUZZ_TARGETS); do \
	    mkdir -p build/fuzz/corpus/$$t tests/fuzz/corpus/$$t; \
	    $(LSAN_ENV) ASAN_OPTIONS=quarantine_size_mb=32 ./build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
	        -timeout=10 -rss_limit_mb=2048 -dict=tests/fuzz/karte.dict -artifact_prefix=build/fuzz/$$t- \
	        build/fuzz/corpus/$$t tests/fuzz/corpus/$$t $$(./tests/fuzz/seeds.sh $$t) > build/fuzz/$$t.log 2>&1; \
	    rc=$$?; \
	    n=$$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/$$t.log); \
	    echo "fuzz: $$t: $${n:-0} executions, exit $$rc"; total=$$((total + $${n:-0})); \
	    if [ $$rc -ne 0 ]; then failed=$$((failed + 1)); tail -n 40 build/fuzz/$$t.log; fi; \
	done; echo "fuzz: $$total executions in all"; \
	[ $$failed -eq 0 ] && echo "fuzz: $(words $(FUZZ_TARGETS)) passed, 0 failed" || \
	    { echo "fuzz: $$failed failed"; exit 1; }

# The UI in headless Chromium (Debian's chromium, playwright-core from npm),
# and the OpenAPI description a karted serves against an OpenAPI 3.1
# validator and Ajv (from npm too).
NPM_TESTS := cd tests/browser && { [ -d node_modules/playwright-core ] && [ -d node_modules/@seriousme/openapi-schema-validator ] && \
             [ -d node_modules/ajv ] || npm ci --no-audit --no-fund; }
test-browser: $(KARTED)
	$(NPM_TESTS)
	cd tests/browser && KARTED=$(CURDIR)/$(KARTED) node --test ui.test.mjs charts.test.mjs openapi.test.mjs

# The quick loop while working (a few minutes): the documents and layers,
# the unit tests, the integration tests and the http cases on SQLite.
# make test stays the whole suite (both builds, PostgreSQL, browser, fuzz).
check: deps $(KARTED) $(KARTE) $(COLLECT) $(REGION_LIB) $(if $(HAVE_MPICC),$(REGION_MPI)) $(BUILD)/tests/otf2_trace
	$(MAKE) test-docs test-unit
	python3 tests/integration.py --karted $(KARTED) --karte $(KARTE) --otf2-writer $(BUILD)/tests/otf2_trace \
	    --cflags="$(SANFLAGS)"
	python3 tests/http_cases.py --karted $(KARTED)
	@echo "make check: passed (make test runs every suite)"

# Every test, on the plain build and again on the sanitizer build.
# The documents against the code: routes in docs/api.md, links resolving.
test-docs:
	python3 tests/docs_check.py
	python3 tests/layers.py

test: deps
	$(MAKE) test-docs test-unit test-integration test-browser test-fuzz
	$(MAKE) asan
	@echo "make test: every test passed (plain and sanitizer builds)"

# The font and drawing libraries keep caches for the life of the process;
# LeakSanitizer is told to ignore those (tests/lsan.supp), nothing of karte's.
asan:
	$(LSAN_ENV) $(MAKE) BUILD=build-asan SAN=1 test-unit test-integration

bench-deps:
	@./deploy/install-deps.sh --bench

bench: bench-deps $(KARTED) $(BUILD)/bench/bare_mhd $(BUILD)/bench/min_ingest $(BUILD)/bench/bare_sqlite $(BUILD)/bench/bench_analysis $(BUILD)/bench/bench_pmnf \
       $(BUILD)/bench/bench_chart $(BUILD)/bench/bench_region $(BUILD)/bench/bench_numbers
	./$(BUILD)/bench/bench_region norapl
	./$(BUILD)/bench/bench_region rapl
	./$(BUILD)/bench/bench_analysis
	./$(BUILD)/bench/bench_pmnf
	./$(BUILD)/bench/bench_chart
	./$(BUILD)/bench/bench_numbers
	python3 tests/bench_render.py --build $(BUILD)
	$(NPM_TESTS)
	KARTED=$(KARTED) node tests/browser/bench_ui.mjs
	python3 tests/bench_reports.py --build $(BUILD)
	python3 tests/bench_regions.py --build $(BUILD)
	python3 tests/bench_ingest.py --build $(BUILD)
	python3 tests/bench_runs.py --build $(BUILD)
	python3 tests/bench_backends.py --build $(BUILD)
	python3 tests/bench_growth.py --build $(BUILD)
	python3 tests/bench_growth.py --build $(BUILD) --backend postgresql --rounds 3
	python3 tests/bench_http.py --build $(BUILD)

# writes OTF2 archives for the tests (libotf2's writer)
$(BUILD)/tests/otf2_trace: $(BUILD)/tests/otf2/otf2_trace.o
	$(CC) $(LDFLAGS) -o $@ $^ -lotf2 -lm

$(BUILD)/bench/bench_numbers: $(BUILD)/tests/bench/bench_numbers.o $(call room_lib,core)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

$(BUILD)/bench/bench_region: $(BUILD)/tests/bench/bench_region.o $(REGION_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread -lm

$(BUILD)/bench/bench_chart: $(BUILD)/tests/bench/bench_chart.o $(BUILD)/server/render/chart.o \
                            $(BUILD)/server/render/report.o $(BUILD)/server/core/xalloc.o $(BUILD)/server/core/kerr.o \
                            $(ANALYSIS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(GSL_LIBS)

$(BUILD)/bench/bench_pmnf: $(BUILD)/tests/bench/bench_pmnf.o $(ANALYSIS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(GSL_LIBS) -lm

$(BUILD)/bench/bench_analysis: $(BUILD)/tests/bench/bench_analysis.o $(BUILD)/tests/iso_oracle.o $(ANALYSIS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(GSL_LIBS) -lm

$(BUILD)/bench/bare_mhd: $(BUILD)/tests/bench/bare_mhd.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/min_ingest: $(BUILD)/tests/bench/min_ingest.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/bare_sqlite: $(BUILD)/tests/bench/bare_sqlite.o $(BUILD)/server/schema_sql.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# Install in the FHS places under PREFIX (and DESTDIR): karted in sbin,
# karte and karte-collect in bin, the region library and its header, the
# UI and the schema in share/karte, man pages (made by help2man from each
# program's --help), the systemd unit with PREFIX's paths. The installed
# karted finds its UI beside it and carries its migrations in itself.
PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^#define KARTE_VERSION "\(.*\)"/\1/p' server/core/version.h)
DESTDIR ?=
MANPAGES := $(BUILD)/man/karted.8 $(BUILD)/man/karte.1 $(BUILD)/man/karte-collect.1

$(BUILD)/man/karted.8: $(KARTED)
	@mkdir -p $(dir $@)
	help2man -N -s 8 -n "karte's daemon: stores runs of parallel programs, serves analyses" -o $@ ./$(KARTED)
$(BUILD)/man/karte.1: $(KARTE)
	@mkdir -p $(dir $@)
	help2man -N -s 1 -n "draw karte's reports offline; correct power traces" -o $@ ./$(KARTE)
$(BUILD)/man/karte-collect.1: $(COLLECT)
	@mkdir -p $(dir $@)
	help2man -N -s 1 -n "measure and post runs to karted" -o $@ ./$(COLLECT)

install: all $(MANPAGES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib \
	    $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/karte/static \
	    $(DESTDIR)$(PREFIX)/share/karte/schema/pg $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/lib/systemd/system
	install -m 755 $(KARTED) $(DESTDIR)$(PREFIX)/sbin/karted
	install -m 755 $(KARTE) $(COLLECT) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(REGION_LIB) $(if $(HAVE_MPICC),$(REGION_MPI)) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(REGION_SO) $(if $(HAVE_MPICC),$(REGION_MPI_SO)) $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man3
	for pc in karte-region $(if $(HAVE_MPICC),karte-region-mpi); do \
	    sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' collectors/$$pc.pc.in \
	        > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$pc.pc; done
	install -m 644 collectors/karte_region.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 collectors/karte_region.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 collectors/karte_region.f90 $(DESTDIR)$(PREFIX)/share/karte/
	cd static && find . -type f | while read -r f; do \
	    install -D -m 644 "$$f" "$(DESTDIR)$(PREFIX)/share/karte/static/$$f"; done
	install -m 644 schema/*.sql $(DESTDIR)$(PREFIX)/share/karte/schema/
	install -m 644 schema/pg/*.sql $(DESTDIR)$(PREFIX)/share/karte/schema/pg/
	install -m 644 $(BUILD)/man/karted.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 644 $(BUILD)/man/karte.1 $(BUILD)/man/karte-collect.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	sed 's|/usr/local|$(PREFIX)|g' deploy/karted.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/karted.service
	sed 's|/usr/local|$(PREFIX)|g' deploy/karted@.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/karted@.service

# karted with example data (SP2, an energy series, an Extra-P import) on
# data/demo.db, serving like make run: a first look at every chart.
demo: deps-run all
	python3 deploy/demo.py --build $(BUILD)

# Every report for the example data, in one page: build/gallery/index.html.
gallery: deps-run $(KARTED)
	python3 tests/gallery.py --karted $(KARTED) --out $(BUILD)/gallery

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
.SECONDARY:
