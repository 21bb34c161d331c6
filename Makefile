# Every target builds its own virtual environment on a fresh machine.
# editable_mode=compat: a plain .pth entry; the default finder costs ~10 ms at every `rq` start.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
ARGS    ?=

.PHONY: run test check fmt lint types sysdeps corpora bench clean install uninstall languages

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $(STAMP)

# Debian tools the tests drive for real: tmux for the popup binding, git for fixtures,
# universal-ctags for the recall-against-ctags tests, vim and neovim for the quickfix
# output and the editors/nvim plugin, zsh and fish for the rq --shell widgets.
SYSDEPS := tmux git universal-ctags vim neovim zsh fish
sysdeps:
	@missing=""; for t in tmux git ctags vim nvim zsh fish; do command -v $$t >/dev/null || missing=1; done; \
	[ -z "$$missing" ] || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSDEPS) >/dev/null; \
	  else echo "make: $(SYSDEPS) are needed for the tests (apt-get install $(SYSDEPS))" >&2; fi; }

# The real source trees the tests read (laid out once, then kept under $(RQ_CORPORA)):
# shared/corpora/get.sh takes each from a registry this machine reaches.
SHARED     ?= $(firstword $(wildcard ../shared /work/shared))
RQ_CORPORA ?= $(HOME)/.cache/rq-corpora
export RQ_CORPORA
TEST_CORPORA := django gostd sinatra tokio rxjs zod effect
corpora:
	@missing=""; for c in $(TEST_CORPORA); do \
	  [ -d "$(RQ_CORPORA)/$$c/.git" ] || missing="$$missing $$c"; done; \
	[ -z "$$missing" ] || { \
	  if [ -x "$(SHARED)/corpora/get.sh" ]; then "$(SHARED)/corpora/get.sh" $$missing; \
	  else echo "make: corpora$$missing are missing and no shared/corpora/get.sh was found" >&2; fi; }

# Index the current directory, then open the picker over it (or answer ARGS as a one-shot query).
run: $(STAMP)
	$(BIN)/rq --index .
	$(BIN)/rq $(ARGS)

test: $(STAMP) sysdeps corpora
	$(BIN)/pytest -q -n 2 -p no:cacheprovider

fmt: $(STAMP)
	$(BIN)/ruff format rq_engine rq_tui tests snapshots bench

lint: $(STAMP)
	$(BIN)/ruff check rq_engine rq_tui tests snapshots bench
	$(BIN)/ruff format --check rq_engine rq_tui tests snapshots bench

types: $(STAMP)
	$(BIN)/mypy

check: lint types test

# core/languages.py from each plugin module's SPEC (a test fails while it is stale)
languages: $(STAMP)
	$(BIN)/python -m rq_engine.lang.generate

clean:
	rm -rf $(VENV) build *.egg-info

# Put `rq` on the PATH for every repository: pipx when it is there, else a private
# venv under $(RQ_VENV) linked into $(PREFIX)/bin. A copy, not an editable install:
# the checkout can change under it (`rq --version` names the commit it was built from).
# INSTALL_WITH=venv skips pipx; HOME, PREFIX and RQ_VENV may be overridden.
PREFIX       ?= $(HOME)/.local
RQ_VENV      ?= $(PREFIX)/share/rq/venv
INSTALL_WITH ?= $(if $(shell command -v pipx),pipx,venv)
install:
ifeq ($(INSTALL_WITH),pipx)
	PIPX_BIN_DIR="$(PREFIX)/bin" pipx install --force .
else
	rm -rf build "$(RQ_VENV)"
	$(PY) -m venv "$(RQ_VENV)"
	"$(RQ_VENV)/bin/pip" install -q .
	rm -rf build
	mkdir -p "$(PREFIX)/bin"
	ln -sf "$(RQ_VENV)/bin/rq" "$(PREFIX)/bin/rq"
endif
	@echo "rq: installed $$("$(PREFIX)/bin/rq" --version | head -1) as $(PREFIX)/bin/rq"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "rq: add $(PREFIX)/bin to PATH";; esac

# Removes the program only: the index ($$RQ_HOME) and caches ($$RQ_CACHE) stay.
uninstall:
	if command -v pipx >/dev/null && pipx list --short 2>/dev/null | grep -q '^rq '; then \
	  PIPX_BIN_DIR="$(PREFIX)/bin" pipx uninstall rq; fi
	if [ -L "$(PREFIX)/bin/rq" ]; then rm -f "$(PREFIX)/bin/rq"; fi
	rm -rf "$(RQ_VENV)"
	-rmdir "$(dir $(RQ_VENV))" 2>/dev/null
