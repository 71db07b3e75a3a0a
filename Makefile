# make run: the whole stack on embedded defaults; make test: the suite.
# DJANGO=6.1 (make test DJANGO=6.1): the same targets on Django 6.1 and Python 3.13
# (pyenv's, or python3.13 on PATH), in a virtualenv of their own.
DJANGO ?= 5.2
ifeq ($(DJANGO),5.2)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
REQUIREMENTS := requirements.txt
DEV_REQUIREMENTS := requirements-dev.txt
else ifeq ($(DJANGO),6.1)
PYTHON ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.13*/bin/python3.13 \
  $(HOME)/.pyenv/versions/3.13*/bin/python3.13 /usr/local/bin/python3.13 /usr/bin/python3.13) \
  $(shell command -v python3.13))
VENV := .venv-django61
REQUIREMENTS := requirements-django61.txt
DEV_REQUIREMENTS := requirements-django61.txt
else
$(error DJANGO=$(DJANGO): the supported lines are 5.2 and 6.1)
endif
BIN := $(VENV)/bin

.PHONY: help run test system-packages lint format bench screenshots clean

# The browser tests drive Debian's chromium; Playwright must never fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

help:
	@echo "make run     migrate, load demo data, start web + worker + beat (Ctrl-C stops all)"
	@echo "make test    install missing system packages and dev requirements, run the test suite"
	@echo "             (DJANGO=6.1: on Django 6.1 and Python 3.13, in .venv-django61)"
	@echo "make lint    ruff check and ruff format --check"
	@echo "make typecheck  mypy (django-stubs) on the apps' typed API (pyproject.toml [tool.mypy])"
	@echo "make format  ruff format and ruff check --fix"
	@echo "make dist    build the sdist and the wheel into dist/, twine check --strict both"
	@echo "make docs    build the docs site into site/ (mkdocs, strict: broken links fail)"
	@echo "make bench   run the benchmarks in bench/"
	@echo "make screenshots  refresh docs/screenshots/ (the pages, in chromium)"

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "No Python for Django $(DJANGO) found: install it, or give make PYTHON=/path/to/python"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# The stamps re-run pip whenever a requirements file changes.
$(VENV)/.installed: requirements.txt requirements-common.txt $(REQUIREMENTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(REQUIREMENTS)
	touch $@

$(VENV)/.installed-dev: $(wildcard requirements*.txt) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(DEV_REQUIREMENTS)
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/python -m project.devstack

# The tests run a real memcached, redis-server and chromium: installed here when
# missing (as root; otherwise it prints the command), the same step as .ci/run's.
system-packages:
	@bash .ci/system-packages

test: system-packages $(VENV)/.installed-dev
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The files and strictness are pyproject.toml's [tool.mypy].
.PHONY: typecheck
typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

format: $(VENV)/.installed-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The release: the sdist and the wheel in dist/, their metadata and README checked as
# the package index renders them (docs/development.md, Releasing).
.PHONY: dist
dist: $(VENV)/.installed-dev
	rm -rf dist && $(BIN)/python -m build --outdir dist . && $(BIN)/twine check --strict dist/*

# The docs as a site in site/ (mkdocs.yml): a broken link or anchor fails the build.
.PHONY: docs
docs: $(VENV)/.installed-dev
	$(BIN)/mkdocs build --strict

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/run.py

# The README's screenshots: the pages with sample content, shot in chromium (tests/browser/).
screenshots: $(VENV)/.installed-dev
	$(BIN)/python -m pytest tests/browser/screenshots.py -q

clean:
	rm -rf .venv .venv-django61 var staticfiles .pytest_cache .ruff_cache .mypy_cache
