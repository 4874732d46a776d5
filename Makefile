# Two commands on a fresh machine: `make plan` (offline plan of the dev stack) and `make test`.
# `make plan` creates .venv with the runtime dependencies only (what the plan imports); `make test`, `make lint`
# and `make bench` add the dev extras (test tools, CRD validators, the day-2 clients, ruff, mypy) the first time.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: plan test test-fast lint bench clean

# --no-compile: pip would byte-compile every module of pulumi-gcp (thousands) at install time, about half of the
# install's CPU; Python compiles (and caches) only the modules a command imports, when it first imports them.
PIP := $(PY) -m pip install --quiet --disable-pip-version-check --no-compile

$(VENV)/.runtime: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

$(VENV)/.installed: $(VENV)/.runtime
	$(PIP) -e ".[dev]"
	touch $@

plan: $(VENV)/.runtime
	$(VENV)/bin/pathways-gke plan --stack dev

test: $(VENV)/.installed
	$(PY) -m pytest

# the quick loop: every test but the ones marked slow (fuzz, workflows, determinism, real JAX, packaging, ...)
test-fast: $(VENV)/.installed
	$(PY) -m pytest -m "not slow"

# the gates CI runs before the tests: ruff (config in pyproject.toml) and mypy on components/pathways_gke
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: $(VENV)/.installed
	$(PY) bench/plan_scale.py

clean:
	rm -rf $(VENV) build dist *.egg-info components/*.egg-info .pytest_cache .mypy_cache .ruff_cache
