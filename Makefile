# Every target builds its own virtual environment on a fresh machine.
# editable_mode=compat: a plain .pth entry; the default finder costs ~10 ms at every `rq` start.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
ARGS    ?=

.PHONY: run test check fmt lint types sysdeps bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $(STAMP)

# Debian tools the tests drive for real (tmux for the popup binding, git for fixtures).
sysdeps:
	@command -v tmux >/dev/null && command -v git >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux git >/dev/null; \
	  else echo "make: tmux and git are needed for the tests (apt-get install tmux git)" >&2; fi; }

# Index the current directory, then open the picker over it (or answer ARGS as a one-shot query).
run: $(STAMP)
	$(BIN)/rq --index .
	$(BIN)/rq $(ARGS)

test: $(STAMP) sysdeps
	$(BIN)/pytest -q -n 2 -p no:cacheprovider

fmt: $(STAMP)
	$(BIN)/ruff format rq_engine rq_tui tests snapshots bench

lint: $(STAMP)
	$(BIN)/ruff check rq_engine rq_tui tests snapshots bench
	$(BIN)/ruff format --check rq_engine rq_tui tests snapshots bench

types: $(STAMP)
	$(BIN)/mypy

check: lint types test

clean:
	rm -rf $(VENV) build *.egg-info
