# Kiln — developer entry points. Run `make help` for the list.
#
# Every target that builds first makes sure the Debian packages Kiln links against are
# installed (`make deps`), so these targets work on a fresh Debian bookworm machine that
# only has Swift.

SWIFT        ?= swift
CONFIG       ?= release
# CPU level of the release build (README "CPU level"): on x86-64, `make run`, `make bench`
# and friends build for the newer of two levels this CPU has: x86-64-v4 — AVX-512 F, BW, CD,
# DQ, VL, what the Swift compiler calls `skylake-avx512` — into .build-v4/, else x86-64-v3 —
# AVX2 + FMA, `haswell` — into .build-v3/; either binary refuses to start on an older CPU.
# CPU_LEVEL=v3 picks v3 on any CPU. PORTABLE=1 builds for the x86-64 baseline into .build/
# instead (also the default on other architectures).
ARCH         := $(shell uname -m)
HOST_LEVEL   := $(shell flags="$$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)"; \
                  for f in avx512f avx512bw avx512cd avx512dq avx512vl; do \
                    echo "$$flags" | grep -qw $$f || { echo v3; exit 0; }; done; echo v4)
CPU_LEVEL    ?= $(HOST_LEVEL)
V3_FLAGS     := -Xswiftc -target-cpu -Xswiftc haswell -Xcc -DKILN_REQUIRE_X86_64_V3
# v4: the VM's lane loops take 16 lanes a step (KILN_X86_64_V4, Sources/KilnVM/Lanes.swift),
# and the loops LLVM vectorizes on its own (the transcendentals' lane loops) may use 512-bit
# registers too: Intel CPUs' tuning prefers 256 bits there unless told otherwise.
V4_FLAGS     := -Xswiftc -target-cpu -Xswiftc skylake-avx512 -Xswiftc -DKILN_X86_64_V4 \
                -Xcc -Xclang -Xcc -target-feature -Xcc -Xclang -Xcc -prefer-256-bit -Xcc -DKILN_REQUIRE_X86_64_V4
# Anything but v4 means v3.
LEVEL        := $(if $(filter v4,$(CPU_LEVEL)),v4,v3)
LEVEL_FLAGS  := $(if $(filter v4,$(LEVEL)),$(V4_FLAGS),$(V3_FLAGS))
LEVEL_DIR    := .build-$(LEVEL)
ifeq ($(PORTABLE)$(ARCH),x86_64)
BUILD_DIR    := $(LEVEL_DIR)
CPU_FLAGS    := $(LEVEL_FLAGS)
else
BUILD_DIR    := .build
CPU_FLAGS    :=
endif
KILN         := $(BUILD_DIR)/$(CONFIG)/kiln
# The Swift runtime and Foundation linked into the executable: process start-up 11 → 6.6 ms,
# `kiln compile` of a small shader 17 → 11 ms (docs/benchmarks.md), and the binary runs
# without the toolchain's libraries.
STATIC_FLAGS := --static-swift-stdlib
# Release builds: every module, the dependencies included, asks for generic type metadata
# through accessor calls instead of mangled type names (Package.swift does it for Kiln's own
# compile-path modules; only a command-line flag reaches the dependencies). Instantiating,
# say, ArgumentParser's `Set<InputKey>` from its mangled name checks `Hashable` by scanning
# every protocol conformance record in the binary (~8 800): a whole-process `kiln compile`
# runs 16 % fewer instructions without those scans (docs/benchmarks.md).
METADATA_FLAGS := -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
RELEASE_FLAGS := $(if $(filter release,$(CONFIG)),$(METADATA_FLAGS))
OUT          ?= out
# Render size for `make run`.
SIZE         ?= 256x256
# The vertex buffer `make run` draws with shaders/triangle.metal: position, colour per vertex.
TRIANGLE     := 0,0.8,0,1,1,0,0,1,-0.8,-0.7,0,1,0,1,0,1,0.8,-0.7,0,1,0,0,1,1
# Debian packages: headers for libwebsockets / OpenSSL / libpng / SQLite, mimalloc (kiln-cli's
# allocator, Package.swift), and pkg-config.
DEB_PACKAGES := libwebsockets-dev libssl-dev libpng-dev libsqlite3-dev libmimalloc-dev pkg-config
# What the end-to-end tests drive Kiln with: curl, openssl (test certificates), headless Chromium.
E2E_PACKAGES := curl openssl chromium chromium-driver haproxy
# Python clients of the end-to-end tests (nobody here wrote them).
PY_PACKAGES  := pytest websockets selenium pyyaml
# `make run` serves here.
PORT         ?= 8080
# apt-get needs root; use sudo only when we are not root already.
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Fuzzing: how long one `make fuzz` run lasts, and where the corpus lives.
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?= 10000000
FUZZ_LIBRARY_RUNS ?= 1000000
FUZZ_CORPUS  ?= $(FUZZ_BUILD)/corpus
FUZZ_LIBRARY_CORPUS ?= $(FUZZ_BUILD)/library-corpus
FUZZ_BUILD   ?= .build-fuzz

.PHONY: help deps e2e-deps postgres postgres-stop build profile run examples test check-self-contained test-swift test-e2e bench bench-art bench-compile bench-server fuzz fuzz-build fuzz-corpus fuzz-long soak clean

help:
	@echo "make run            build (release, x86-64-v4 or -v3 as this CPU has; PORTABLE=1 for the baseline) and serve the browser page, the API and the examples on http://localhost:$(PORT)/"
	@echo "make profile        re-record profiles/compiler.profdata, the profile release builds optimize the compiler with"
	@echo "make examples       compile, disassemble and render every example shader into $(OUT)/"
	@echo "make test           build and run the whole test suite: Swift tests, then real clients against kiln serve (what CI runs)"
	@echo "make bench-server   edit latency, frames/s and memory of kiln serve under load (tools/server_load.py)"
	@echo "make bench          throughput and first-frame benchmarks (kiln bench), then compile times"
	@echo "make bench-art      frames per second of the shader-art collection (shaders/art_*.metal) and the art cases at 512²"
	@echo "make fuzz           build the libFuzzer target and fuzz for FUZZ_SECONDS=$(FUZZ_SECONDS) s"
	@echo "make fuzz-long      fuzz FUZZ_RUNS=$(FUZZ_RUNS) inputs, then FUZZ_LIBRARY_RUNS=$(FUZZ_LIBRARY_RUNS) mutated libraries (over an hour; not in CI)"
	@echo "make soak           50 editing clients for SOAK_MINUTES=$(SOAK_MINUTES) min: RSS drift, fairness, edit latency"
	@echo "make clean          remove build products and $(OUT)/"

# Installs the Debian packages of $(1) that are missing (dpkg -s tells whether one is).
define install_missing
	@missing=""; \
	for package in $(1); do \
		dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing missing Debian packages:$$missing"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))

# The end-to-end tests' tools: Debian packages, then Python packages.
e2e-deps: deps
	$(call install_missing,$(E2E_PACKAGES))
	@python3 -c "import pytest, websockets, selenium, yaml" 2>/dev/null || python3 -m pip install --quiet $(PY_PACKAGES)

build: deps
	$(SWIFT) build -c $(CONFIG) --scratch-path $(BUILD_DIR) $(CPU_FLAGS) $(STATIC_FLAGS) $(RELEASE_FLAGS)

# Profile-guided optimization of the compiler: rebuilds profiles/compiler.profdata from the
# shaders under Tests/ with an instrumented kiln (tools/pgo-profile.sh; docs/compiler.md,
# "Built with a profile"). Commit the new profile; the next `make build` uses it.
profile: deps
	bash tools/pgo-profile.sh $(CPU_FLAGS) $(STATIC_FLAGS) $(RELEASE_FLAGS)

# Serve the page in public/, the HTTP API and the WebSocket on one port (Ctrl-C stops it).
run: build
	$(KILN) serve --port $(PORT) --public-directory public --shaders-directory shaders

# Compile every example shader to a library, print its disassembly next to it, and
# render every entry function that can draw on its own into $(OUT)/<shader>/.
examples: build
	@mkdir -p $(OUT)
	@set -e; for shader in shaders/*.metal; do \
		name=$$(basename $$shader .metal); \
		mkdir -p $(OUT)/$$name; \
		echo "== $$shader"; \
		$(KILN) compile $$shader -o $(OUT)/$$name/$$name.kilnlib; \
		$(KILN) disasm $(OUT)/$$name/$$name.kilnlib > $(OUT)/$$name/$$name.disasm.txt; \
		extra=""; \
		case $$name in triangle) extra="--arg vertices=$(TRIANGLE)";; esac; \
		$(KILN) render $$shader --size $(SIZE) --content photo --content2 checker $$extra -o $(OUT)/$$name/; \
	done
	@echo "Libraries, disassembly and PNGs are in $(OUT)/"

# The test suite. Everything it reads is in this repository (conformance set in
# Tests/Conformance/, benchmark shaders in bench/); check-self-contained makes sure of it.
test: check-self-contained test-swift test-e2e

# Fails when a tracked file outside docs/ names the team's reference folder beside the
# repository: a user's clone has nothing beside it.
check-self-contained:
	@bash tools/check-self-contained.sh

test-swift: deps postgres
	$(SWIFT) build --build-tests
	KILN_TEST_POSTGRES="$$(bash tools/postgres.sh url)" $(SWIFT) test

# A private PostgreSQL server on loopback (port 55432, trust authentication) for the
# storage tests and the cluster test: tools/postgres.sh. `make postgres-stop` stops it.
postgres:
	$(call install_missing,postgresql)
	@bash tools/postgres.sh start

postgres-stop:
	@bash tools/postgres.sh stop

# Real clients (Python websockets, curl, headless Chromium) against a real `kiln serve`.
# Screenshots of the browser steps land in .build/artifacts/browser/.
# On x86-64 they also check that the release build of this CPU's level (x86-64-v4 or -v3)
# renders the portable build's bytes (Tests/e2e/test_cpu_level.py; KILN_CPU_BIN).
test-e2e: e2e-deps postgres
	$(SWIFT) build --product kiln
	$(SWIFT) build --product kiln-cli
ifeq ($(ARCH),x86_64)
	$(SWIFT) build -c release --product kiln --scratch-path $(LEVEL_DIR) $(LEVEL_FLAGS) $(STATIC_FLAGS) $(METADATA_FLAGS)
	$(SWIFT) build -c release --product kiln-cli --scratch-path $(LEVEL_DIR) $(LEVEL_FLAGS) $(STATIC_FLAGS) $(METADATA_FLAGS)
	KILN_TEST_POSTGRES="$$(bash tools/postgres.sh url)" KILN_BIN=$(CURDIR)/.build/debug/kiln KILN_CPU_BIN=$(CURDIR)/$(LEVEL_DIR)/release/kiln KILN_CPU_LEVEL=$(LEVEL) python3 -m pytest -q Tests/e2e
else
	KILN_TEST_POSTGRES="$$(bash tools/postgres.sh url)" KILN_BIN=$(CURDIR)/.build/debug/kiln python3 -m pytest -q Tests/e2e
endif

bench-server: build
	KILN_BIN=$(CURDIR)/$(KILN) python3 tools/server_load.py latency
	KILN_BIN=$(CURDIR)/$(KILN) python3 tools/server_load.py editors
	KILN_BIN=$(CURDIR)/$(KILN) python3 tools/server_load.py viewers
	KILN_BIN=$(CURDIR)/$(KILN) python3 tools/server_load.py idle
	KILN_BIN=$(CURDIR)/$(KILN) python3 tools/server_load.py attack

# Issue 14's soak: 50 editing clients against one server for an hour, a table a minute
# (RSS, frames/s fairness, edit latency); not in CI. SOAK_MINUTES=5 for a short one.
SOAK_MINUTES ?= 60
soak: build e2e-deps
	KILN_BIN=$(CURDIR)/$(KILN) python3 tools/soak.py --clients 50 --minutes $(SOAK_MINUTES)

bench: build
	$(KILN) bench
	$(KILN) bench compile

bench-compile: build
	$(KILN) bench compile

# The shader-art collection and the benchmark's art cases, each at 512²: issue 10's "every
# entry at 30 fps or more" is the fps column.
bench-art: build
	$(KILN) bench shader shaders/art_*.metal bench/raymarch.metal bench/fbm.metal bench/sdf2d.metal --size 512x512

# libFuzzer needs its own build folder: the -sanitize=fuzzer objects must not mix
# with the normal ones. See README.md, "Fuzzing". The fuzzer turns the exclusivity checks
# Package.swift leaves out of release builds back on (the command line's flag comes last).
fuzz-build: deps
	$(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) --product KilnFuzz \
		-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -enforce-exclusivity=checked

# The corpus: every shader in the repository and the libraries they compile to (so
# mutations of real libraries reach the verifier and the VM).
fuzz-corpus: build
	@mkdir -p $(FUZZ_CORPUS)
	@for f in shaders/*.metal shaders/*.h bench/*.metal Tests/Conformance/shaders/*.metal Tests/Derivatives/*.metal \
		$$(find Tests/Projects -name '*.metal' -o -name '*.h'); do cp -n "$$f" $(FUZZ_CORPUS)/ 2>/dev/null; done; true
	@for f in shaders/*.metal bench/*.metal; do \
		$(KILN) compile "$$f" -I shaders -o $(FUZZ_CORPUS)/$$(basename $$f .metal).kilnlib >/dev/null 2>&1; done; true
	@mkdir -p $(FUZZ_LIBRARY_CORPUS) && cp -n $(FUZZ_CORPUS)/*.kilnlib $(FUZZ_LIBRARY_CORPUS)/ 2>/dev/null; true

# SWIFT_BACKTRACE=enable=no: Swift's own crash handler would catch a trap (a failed
# precondition) before libFuzzer's, and the input that caused it would not be saved.
fuzz: fuzz-build fuzz-corpus
	SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)/release/KilnFuzz $(FUZZ_CORPUS) -dict=tools/fuzz.dict -max_total_time=$(FUZZ_SECONDS) -max_len=16384

# Issue 14's scale, not in CI: 10^7 inputs mutated from the whole corpus (sources and
# libraries), then 10^6 mutated from the libraries alone, so most of them get past the
# reader's header into the verifier and the VM. libFuzzer prints its count and rate as it
# goes and a summary at the end; see README "Fuzzing".
fuzz-long: fuzz-build fuzz-corpus
	SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)/release/KilnFuzz $(FUZZ_CORPUS) -dict=tools/fuzz.dict -runs=$(FUZZ_RUNS) -max_len=16384 \
		-timeout=10 -rss_limit_mb=4096 -print_final_stats=1
	SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)/release/KilnFuzz $(FUZZ_LIBRARY_CORPUS) -runs=$(FUZZ_LIBRARY_RUNS) -max_len=16384 \
		-timeout=10 -rss_limit_mb=4096 -print_final_stats=1

clean:
	$(SWIFT) package clean
	rm -rf $(OUT) $(FUZZ_BUILD) .build-v3 .build-pgo
