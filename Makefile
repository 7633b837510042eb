# The entry points: `make html` builds the site, `make test` runs every check.
# Both create the project's virtual environment (.venv) on first use; later runs reuse it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SPHINX := $(BIN)/sphinx-build
SPHINXOPTS ?=
# -W: warnings are errors; --keep-going: report all of them; -n: nitpicky cross-references.
SPHINXFLAGS := -W --keep-going -n -c . $(SPHINXOPTS)
# The site: pages written side by side, one process per core (-j; the pages' notebooks are
# executed side by side by docs/_ext/parallel_execution.py, which keeps the read in one process).
HTMLFLAGS := -j auto $(SPHINXFLAGS)
PORT ?= 8000
# pytest runs on every core (pytest-xdist; PYTEST_WORKERS=0 runs it in one process).
PYTEST_WORKERS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(PYTEST_WORKERS)
# `make test`'s stages, in order; tools/stages.py runs them and closes with the time each took.
# Stages joined by + run side by side: mypy and the doctest builder use one core each, the site's
# build a little more than one (its pages are read in one process), so together they fill two.
# The three pytest sessions, too: the site's tests leave a core idle about a quarter of the time
# (their workers wait on the browser), which the other two fill, and no session ends alone.
TEST_STAGES := venv lint typecheck+doctest+html-fresh pytest+site-tests+pytest-baseline
# `make check` runs the tests a change touches: the change is what differs from BASE (by default
# where this branch left main).
BASE ?=

.DEFAULT_GOAL := help
.PHONY: help venv lock html html-fresh doctest test check lint format typecheck pytest \
	pytest-baseline site-tests serve clean bench nox fuzz

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Every package comes from the lock, constraints.txt: pip, the build requirements, then the package
# (built without isolation, so with the locked setuptools and wheel) and its extras. pip compiles
# no bytecode (--no-compile: compiling every module of every package was two thirds of the
# install's CPU); tools/warm_bytecode.py then compiles what the checks import, by importing it.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile -c constraints.txt pip setuptools wheel
	$(BIN)/python -m pip install --quiet --no-compile -c constraints.txt --no-build-isolation \
		-e '.[test,docs]'
	$(BIN)/python tools/warm_bytecode.py
	touch $(STAMP)

venv: $(STAMP) ## Create .venv and install the package with its test and docs extras

# pip-tools resolves with pip, so torch==2.13.0 (constraints.in) resolves to the local CPU wheel, for
# this Python (3.11) on Linux x86-64. It runs from its own environment, .venv-lock.
LOCK_TOOLS := .venv-lock
PIP_TOOLS := pip-tools==7.6.2
lock: ## Refresh constraints.txt, the lock of every package, from constraints.in and pyproject.toml
	test -x $(LOCK_TOOLS)/bin/pip-compile || $(PYTHON) -m venv $(LOCK_TOOLS)
	$(LOCK_TOOLS)/bin/python -m pip install --quiet '$(PIP_TOOLS)'
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_TOOLS)/bin/pip-compile --quiet --upgrade \
		--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
		--extra test --extra docs --extra nox --output-file constraints.txt pyproject.toml constraints.in

html: $(STAMP) ## Build the site into _build/html (warnings are errors)
	$(SPHINX) -b html -d _build/doctrees-html $(HTMLFLAGS) docs _build/html
	@echo "The site is in _build/html/index.html"

html-fresh: $(STAMP) ## Build the site from scratch (so unchanged pages repeat their warnings)
	rm -rf _build/html _build/doctrees-html
	$(MAKE) html

doctest: $(STAMP) ## Run the doctests of the pages and of the API reference
	$(SPHINX) -b doctest -d _build/doctrees-doctest $(SPHINXFLAGS) -D nb_execution_mode=off -D suppress_warnings=myst-nb.lexer docs _build/doctest

lint: $(STAMP) ## ruff: lint and format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP) ## ruff: fix what can be fixed and format
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: $(STAMP) ## mypy, strict on src/
	$(BIN)/mypy

pytest: $(STAMP) ## Unit tests, docstring doctests and the Markdown doctests, on every core
	$(PYTEST) --ignore=tests/site

# The numerically sensitive suites (tests/support/kernels.py names them) again, on baseline kernels:
# numpy refuses to disable its baseline features, so kernels.py names the dispatchable ones this CPU
# has; pytest's header then shows what is disabled and torch's capability (DEFAULT).
# Each of these two sessions keeps its own cache (what --lf reads), since `make test` runs them
# beside `make pytest`: a session writes its cache whole when it ends, over the others'.
pytest-baseline: $(STAMP) ## The numeric suites again, numpy and torch on baseline kernels
	NPY_DISABLE_CPU_FEATURES="$$($(BIN)/python tests/support/kernels.py)" ATEN_CPU_CAPABILITY=default \
		$(PYTEST) -o cache_dir=_build/.pytest_cache_baseline $$($(BIN)/python tests/support/kernels.py --suites)

site-tests: $(STAMP) ## Checks of the built site (after `make html`)
	$(PYTEST) -o cache_dir=_build/.pytest_cache_site tests/site

# It keeps the bytecode Python compiles (__pycache__, which git ignores) even where the environment
# sets PYTHONDONTWRITEBYTECODE: the engine is then compiled, and pytest rewrites the tests' asserts,
# once, not again in every pytest worker, page kernel and `python -m ownership ...` of a CLI test.
test: ## Every check (what CI runs), closing with the time each stage took
	@env -u PYTHONDONTWRITEBYTECODE $(PYTHON) tools/stages.py $(TEST_STAGES)

check: $(STAMP) ## The inner loop: lint, types and the tests a change touches (BASE=commit)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	@tests="$$($(BIN)/python tools/changed_tests.py $(BASE))"; \
	if [ -z "$$tests" ]; then echo "make check: no test touched by the change"; \
	else echo "make check: the tests the change touches:" $$tests; $(PYTEST) $$tests; fi

# The package stays installed editable, as the install rule above installs it.
nox: $(STAMP) ## Install nox (from the lock) into .venv: then .venv/bin/nox -s SESSION
	$(BIN)/python -m pip install --quiet -c constraints.txt --no-build-isolation -e '.[nox]'

serve: ## Serve _build/html on http://127.0.0.1:$(PORT)
	$(PYTHON) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

bench: $(STAMP) ## Benchmarks: ownership against torch and plain numpy, side by side
	$(BIN)/python bench/run.py

# The fuzzer (tests/support/fuzz.py): programs SEED .. SEED+COUNT-1, beyond the fixed budget that
# tests/programs/test_fuzz_programs.py runs; each failing program is printed as a shrunk torch program.
SEED ?= 1000
COUNT ?= 500
fuzz: $(STAMP) ## Random programs, torch against ownership: make fuzz SEED=1000 COUNT=500
	PYTHONPATH=tests$${PYTHONPATH:+:$$PYTHONPATH} $(BIN)/python -m support.fuzz --seed $(SEED) --count $(COUNT)

clean: ## Remove the build (the virtual environment stays)
	rm -rf _build
