# semv — two commands work on a fresh Debian machine: `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DATA_DIR ?= .semv
DEMO_CASE ?= examples/lyon-flood

.PHONY: demo test lint format bench cv system-deps venv clean

# System packages the tests and the demo use (system-packages.txt); apt installs the missing ones.
system-deps:
	@missing=$$(sed -e 's/#.*//' system-packages.txt | xargs -n1 | while read -r p; do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "ok installed" || echo "$$p"; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:" $$missing; \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@if ! $(PYTHON) -c "import ensurepip, venv" >/dev/null 2>&1; then \
	  SUDO=""; [ "$$(id -u)" -eq 0 ] || SUDO="sudo"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends python3-venv; \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

venv: system-deps $(STAMP)

demo: venv
	$(VENV)/bin/semv verify $(DEMO_CASE) --data-dir $(DATA_DIR)

lint: venv
	$(VENV)/bin/ruff format --check src tests benchmarks scripts
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/mypy

format: venv
	$(VENV)/bin/ruff format src tests benchmarks scripts
	$(VENV)/bin/ruff check --fix src tests benchmarks scripts

test: lint
	$(VENV)/bin/pytest -q

bench: venv
	$(PY) benchmarks/run.py

# Cross-validation of the offline backend's tuned thresholds on ../shared/data/ookpik-dev.
cv: venv
	$(PY) benchmarks/ookpik_cv.py

clean:
	rm -rf $(VENV) $(DATA_DIR) .mypy_cache .ruff_cache .pytest_cache
