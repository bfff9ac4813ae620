# The course's two commands: `make lab` (learn) and `make test` (check everything).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test bench notebooks exercises clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# reinstall only when the project's requirements change
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/00_start_here.ipynb

test: $(STAMP)
	$(BIN)/python -m pytest -q tests

bench: $(STAMP)
	$(BIN)/python -m bench

# re-execute every notebook in place (outputs are committed)
notebooks: $(STAMP)
	$(BIN)/python -m course execute notebooks/*.ipynb solutions/*.ipynb

# regenerate exercises/ from solutions/
exercises: $(STAMP)
	$(BIN)/python -m course assign

clean:
	rm -rf $(VENV) build
