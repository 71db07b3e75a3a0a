# make run: the whole stack on embedded defaults; make test: the suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: help run test system-packages lint format bench screenshots clean

# The browser tests drive Debian's chromium; Playwright must never fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

help:
	@echo "make run     migrate, load demo data, start web + worker + beat (Ctrl-C stops all)"
	@echo "make test    install missing system packages and dev requirements, run the test suite"
	@echo "make lint    ruff check and ruff format --check"
	@echo "make format  ruff format and ruff check --fix"
	@echo "make bench   run the benchmarks in bench/"
	@echo "make screenshots  refresh docs/screenshots/ (the pages, in chromium)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The stamps re-run pip whenever a requirements file changes.
$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
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

format: $(VENV)/.installed-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/run.py

# The README's screenshots: the pages with sample content, shot in chromium (tests/browser/).
screenshots: $(VENV)/.installed-dev
	$(BIN)/python -m pytest tests/browser/screenshots.py -q

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache
