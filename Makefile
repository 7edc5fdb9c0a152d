# OpenBench convention: `make EXE=<path>` builds the release binary (LTO, one codegen unit, see
# Cargo.toml) and puts it at <path>. It is built for this machine's CPU (popcnt, BMI2, AVX2...),
# which gives more nodes a second than the portable build (docs/strength.md, Speed);
# `make NATIVE=0` builds the portable binary that `cargo build --release` gives.
# `make FEATURES=spsa EXE=...` builds the tuning build (every search parameter a UCI option).
#
# `make PGO=1 EXE=...` builds it guided by a profile: an instrumented build runs `bench`, LLVM's
# profile of that run steers the final build's inlining and code layout, and the final binary's
# bench signature must equal the instrumented one's (the same search, only faster). It needs
# the llvm-profdata that matches rustc's LLVM (`rustup component add llvm-tools`), or give its
# path as LLVM_PROFDATA=... docs/strength.md (Speed) has the measured gain.
EXE ?= rookery
NATIVE ?= 1
PGO ?= 0
FEATURES ?=
ifeq ($(NATIVE),1)
RUSTFLAGS_NATIVE := -C target-cpu=native
endif
CARGO_FEATURES := $(if $(FEATURES),--features $(FEATURES))

.PHONY: all
.DEFAULT_GOAL := all
ifeq ($(PGO),1)
# The host triple is named so that RUSTFLAGS reach the crate but not its build script.
HOST := $(shell rustc -vV | sed -n 's/^host: //p')
LLVM_PROFDATA ?= $(shell rustc --print sysroot)/lib/rustlib/$(HOST)/bin/llvm-profdata
PGO_DIR := $(CURDIR)/target/pgo
# `make PGO=1 pgo-check` answers whether the profile tool is there (scripts/generation asks it).
.PHONY: pgo-check
pgo-check:
	@test -x "$(LLVM_PROFDATA)" || { echo "make PGO=1: no llvm-profdata at $(LLVM_PROFDATA); run 'rustup component add llvm-tools' or give LLVM_PROFDATA=<path>" >&2; exit 1; }
all: pgo-check
	rm -rf $(PGO_DIR)/profiles $(PGO_DIR)/rookery.profdata
	RUSTFLAGS="$(RUSTFLAGS) $(RUSTFLAGS_NATIVE) -C profile-generate=$(PGO_DIR)/profiles" CARGO_TARGET_DIR=target/pgo/gen cargo build --release --target $(HOST) $(CARGO_FEATURES)
	target/pgo/gen/$(HOST)/release/rookery bench | tail -n 1 | cut -d' ' -f1 > $(PGO_DIR)/bench-instrumented
	"$(LLVM_PROFDATA)" merge -o $(PGO_DIR)/rookery.profdata $(PGO_DIR)/profiles
	RUSTFLAGS="$(RUSTFLAGS) $(RUSTFLAGS_NATIVE) -C profile-use=$(PGO_DIR)/rookery.profdata" CARGO_TARGET_DIR=target/pgo/use cargo build --release --target $(HOST) $(CARGO_FEATURES)
	target/pgo/use/$(HOST)/release/rookery bench | tail -n 1 | cut -d' ' -f1 > $(PGO_DIR)/bench-final
	@cmp -s $(PGO_DIR)/bench-instrumented $(PGO_DIR)/bench-final || { echo "make PGO=1: the final build's bench signature ($$(cat $(PGO_DIR)/bench-final)) differs from the instrumented build's ($$(cat $(PGO_DIR)/bench-instrumented))" >&2; exit 1; }
	cp target/pgo/use/$(HOST)/release/rookery $(EXE)
else
all:
	RUSTFLAGS="$(RUSTFLAGS) $(RUSTFLAGS_NATIVE)" CARGO_TARGET_DIR=target/make cargo build --release $(CARGO_FEATURES)
	cp target/make/release/rookery $(EXE)
endif
