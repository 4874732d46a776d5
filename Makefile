# Two commands on a fresh machine: `make plan` (offline plan of the dev stack) and `make test`.
# Both create .venv and install the package with its test tools the first time.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: plan test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

plan: $(VENV)/.installed
	$(VENV)/bin/pathways-gke plan --stack dev

test: $(VENV)/.installed
	$(PY) -m pytest

bench: $(VENV)/.installed
	$(PY) bench/plan_scale.py

clean:
	rm -rf $(VENV) build dist *.egg-info components/*.egg-info .pytest_cache
