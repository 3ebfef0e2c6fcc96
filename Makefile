PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: venv demo test lint

venv: $(STAMP)

# The editable finder maps only the packages present at install time, so reinstall once
# srcad/__init__.py exists (and whenever it changes).
$(STAMP): pyproject.toml $(wildcard srcad/__init__.py)
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -e '.[dev]'
	touch $(STAMP)

demo: venv
	$(VENV)/bin/python examples/mixture.py

test: venv
	$(VENV)/bin/python -m pytest -q

lint: venv
	$(VENV)/bin/ruff check .
