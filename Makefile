# The course's two commands: `make lab` (learn) and `make test` (check everything).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab lab-ja system lint check test test-suite test-notebooks bench notebooks exercises ja clean

# the venv starts with uv (from PyPI), which installs everything else from one shared cache (~/.cache/uv), the side
# venvs under build/ included
$(BIN)/uv:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv

# reinstall only when the project's requirements change; compiled to bytecode once here, since no process may write
# it later (PYTHONDONTWRITEBYTECODE) and every kernel and grader process would compile its imports again (~2 s each)
$(STAMP): pyproject.toml | $(BIN)/uv
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test]'
	touch $(STAMP)

# Jupyter refuses to run as root unless told to (containers, CI machines)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# the course's JupyterLab settings (no news popup, widget state saved with the notebook), for this venv only
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
$(LAB_OVERRIDES): jupyter/overrides.json $(STAMP)
	install -D -m 644 jupyter/overrides.json $@

# the English edition speaks English whatever the machine's locale (make lab-ja for the Japanese one)
lab: $(STAMP) $(LAB_OVERRIDES)
	COURSE_LANG=en $(BIN)/jupyter lab $(ROOT_FLAG) notebooks/00_start_here.ipynb

# the Japanese edition: the lessons in notebooks/ja, the library's messages and JupyterLab's menus in Japanese (its
# own settings folder, so the English edition's menus stay English)
LAB_JA := $(VENV)/share/jupyter/lab-ja
$(LAB_JA)/@jupyterlab/translation-extension/plugin.jupyterlab-settings: jupyter/lab-ja.jupyterlab-settings
	install -D -m 644 $< $@

lab-ja: $(STAMP) $(LAB_OVERRIDES) $(LAB_JA)/@jupyterlab/translation-extension/plugin.jupyterlab-settings
	COURSE_LANG=ja JUPYTERLAB_SETTINGS_DIR=$(LAB_JA) $(BIN)/jupyter lab $(ROOT_FLAG) notebooks/ja/00_start_here.ipynb

# notebooks are compared cell by cell with their committed outputs (strict nbval);
# folders that do not exist yet (exercises/ before `make exercises`) are skipped;
# they always run on the local API, as when their outputs were made; each in a fresh kernel of this venv
# forked from one that has imported the SDK, IPython and matplotlib (tests/preloaded_kernels.py)
NBVAL := --nbval -p tests.preloaded_kernels --nbval-cell-timeout=120 --nbval-sanitize-with tests/nbval_sanitize.cfg
# the agent frameworks' own venv, for tests/api/test_frameworks.py (pydantic-ai, langchain-anthropic, langgraph)
FRAMEWORKS := build/frameworks/.installed
$(FRAMEWORKS): tests/api/test_frameworks.py | $(STAMP)
	PYTHONPATH=. $(BIN)/python tests/api/test_frameworks.py

# the real nbgrader's venv, for tests/grading/test_nbgrader_scoring.py (also the grading benchmark's)
NBGRADER := build/bench-envs/nbgrader/.installed
$(NBGRADER): | $(STAMP)
	$(BIN)/python -c "from bench.grading import tool_env; tool_env('nbgrader')"

# a real JupyterHub (PyPI) and its proxy (npm), for tests/workshop/test_jupyterhub_config.py (and make bench)
HUB := build/workshop/node_modules/.bin/configurable-http-proxy
$(HUB): | $(STAMP)
	$(BIN)/python -c "from bench.workshop import install; print(install())"

# the Debian packages some tests need (bubblewrap, chromium, a Japanese font): installed as root with apt-get,
# otherwise named, with the tests that will skip (tests/system_packages.py)
system:
	PYTHONPATH=. $(PY) tests/system_packages.py

# once the course's venv and bytecode are ready, everything else runs side by side: the notebooks at once, the code's
# own checks (lint), the side venvs (each mostly waits for the package index), and the test suite (on three workers:
# a test that needs a side venv still being built waits for it, bench/envs.py's once); each prints its report, with
# its slowest tests, when it ends
test: system
	$(MAKE) --no-print-directory $(STAMP)
	$(BIN)/python -m compileall -q -j 0 course  # the course's bytecode, read by every process that imports it
	@echo "the test suite and the notebooks run side by side; each prints its report when it ends"
	$(MAKE) --no-print-directory -j6 --output-sync=target lint $(FRAMEWORKS) $(NBGRADER) $(HUB) test-suite test-notebooks

# the code checked by its own tools
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy  # course/, configured in pyproject.toml

# the inner loop: lint and the tests not marked slow, browser or bwrap (no Claude Code CLI, no JupyterLab)
check: lint
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow and not browser and not bwrap" tests

# the reference's and the known mistakes' Claude Code CLI runs, saved once for every process of a run (the suite's
# workers, the grader's, the notebooks' kernels), named by a fingerprint of the code
# (course/grading/judging/saved_outcomes.py)
check test-suite test-notebooks: export COURSE_SAVED_OUTCOMES := $(CURDIR)/build/outcomes

# three workers on two cores (much of the suite waits on the Claude Code CLI, JupyterLab and sandboxes: two left
# a third of the cores idle), each taking a whole test file at a time (its module fixtures run once), the longest
# files first (tests/conftest.py orders them)
test-suite: $(STAMP)
	$(BIN)/python -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder --durations=10 tests

# in an environment unlike the one that executed them (another shell, home and temporary folder): no committed
# output may depend on the machine; lesson 14 (both editions) is left to the suite's tests/test_lesson_14_elsewhere.py,
# which runs it from another checkout path too
LEFT_TO_THE_SUITE := notebooks/14_the_agent_sdk.ipynb notebooks/ja/14_the_agent_sdk.ipynb
test-notebooks: $(STAMP)
	env -u ANTHROPIC_API_KEY -u COURSE_LIVE COURSE_LANG=en SHELL=/bin/sh HOME=$$(mktemp -d) \
	  TMPDIR=$$(mktemp -d /tmp/another-temporary-folder-XXXXXXXX) $(BIN)/python -m pytest -q --durations=5 $(NBVAL) \
	  $(addprefix --ignore=,$(LEFT_TO_THE_SUITE)) $(wildcard notebooks solutions exercises)

bench: $(STAMP)
	$(BIN)/python -m bench

# re-execute every notebook in place (outputs are committed)
notebooks: $(STAMP)
	$(BIN)/python -m course execute $(wildcard notebooks/*.ipynb solutions/*.ipynb)

# regenerate exercises/ from solutions/
exercises: $(STAMP)
	$(BIN)/python -m course assign

# rebuild notebooks/ja, exercises/ja and solutions/ja from the English ones and translations/ja, then execute them
ja: $(STAMP)
	$(BIN)/python -m course translate

clean:
	rm -rf $(VENV) build
