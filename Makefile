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
PORT ?= 8000

.DEFAULT_GOAL := help
.PHONY: help venv html html-fresh doctest test lint format typecheck pytest site-tests serve clean bench

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-11s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test,docs]'
	touch $(STAMP)

venv: $(STAMP) ## Create .venv and install the package with its test and docs extras

html: $(STAMP) ## Build the site into _build/html (warnings are errors)
	$(SPHINX) -b html -d _build/doctrees-html $(SPHINXFLAGS) docs _build/html
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

pytest: $(STAMP) ## Unit tests, docstring doctests and the Markdown doctests
	$(BIN)/python -m pytest --ignore=tests/site

site-tests: $(STAMP) ## Checks of the built site (after `make html`)
	$(BIN)/python -m pytest tests/site

test: lint typecheck pytest doctest html-fresh site-tests ## Every check (what CI runs)
	@echo "make test: every check passed"

serve: ## Serve _build/html on http://127.0.0.1:$(PORT)
	$(PYTHON) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

bench: $(STAMP) ## Benchmarks: ownership against torch and plain numpy, side by side
	$(BIN)/python bench/run.py

clean: ## Remove the build (the virtual environment stays)
	rm -rf _build
