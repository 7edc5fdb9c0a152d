# OpenBench convention: `make EXE=<path>` builds the release binary (LTO, one codegen unit, see
# Cargo.toml) and puts it at <path>.
EXE ?= rookery

.PHONY: all
all:
	cargo build --release
	cp target/release/rookery $(EXE)
