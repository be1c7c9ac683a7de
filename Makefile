# lakemix: `make demo` sets up everything and runs the pipeline on the sample corpus;
# `make test` runs linters, type checks, the Python tests and a dbt build on fixture data.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export DO_NOT_TRACK := 1
export DBT_SEND_ANONYMOUS_USAGE_STATS := false

.PHONY: venv demo test lint typecheck pytest services clean notebook

$(VENV)/.installed: pyproject.toml requirements.lock requirements-spark.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# torch first, alone: the lock pins the CPU build that lies on this machine's disk, and
	# nothing installed after it may pull another torch (../shared/REFERENCE.md).
	$(BIN)/pip install -q $$(grep '^torch==' requirements.lock)
	$(BIN)/pip install -q -r requirements.lock -r requirements-spark.lock
	$(BIN)/pip install -q --no-deps -e .
	touch $@

venv: $(VENV)/.installed

demo: venv
	bash scripts/demo.sh

lint: venv
	$(BIN)/ruff check python bench scripts
	$(BIN)/ruff format --check python bench scripts
	# SQL layout of models, macros and data tests (.sqlfluff: jinja templater, duckdb dialect)
	$(BIN)/sqlfluff lint models macros tests --processes 2
	# dbt metadata (descriptions, owners, tests) on a parse-only manifest: no lakehouse needed;
	# a mix named so that the mix models (disabled without lakemix_mix) are checked too
	$(BIN)/dbt parse --quiet --project-dir . --profiles-dir . --target-path target/lint \
		--vars '{lakemix_mix: demo_unimax}'
	$(BIN)/dbt-score lint --manifest target/lint/manifest.json
	# every column of a mart (what the loader, mixes, report and lineage read) has a data test
	$(BIN)/python scripts/check_mart_tests.py target/lint/manifest.json

typecheck: venv
	$(BIN)/mypy

services:
	bash scripts/services.sh

# JupyterLab on the exploration notebook (LAKEMIX_HOME picks the lakehouse; default ./lakehouse).
# Jupyter refuses to start as root (most containers) unless told: tell it when uid is 0.
notebook: venv
	$(BIN)/jupyter lab $$([ "$$(id -u)" = 0 ] && echo --allow-root) analyses/explore.ipynb

pytest: venv services
	source .services.env && $(BIN)/pytest

test: lint typecheck pytest

clean:
	rm -rf lakehouse target logs .services.env
