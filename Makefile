# The commands the README promises: `make run` and `make test`, `make check` (lint and the quick tests), `make docs`
# (the manual, served) and `make dev` (the development profile). All create .venv and install the pinned
# dependencies on first use (the test and docs extras of pyproject.toml).
# `make run` serves with the production settings of .streamlit/config.toml (no file watcher, no forced
# collection after every run), warmed by deploy/warm.py as soon as it answers; `make dev` is the same server
# with the watcher on, rerunning on save.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DB ?= data/costfrontier.duckdb
PORT ?= 8501
DOCS_PORT ?= 8000

.PHONY: durations run dev test check docs bench clean

$(BIN)/costfrontier: pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $@

run: $(BIN)/costfrontier
	COSTFRONTIER_DB=$(DB) $(BIN)/costfrontier load-samples --if-empty
	$(BIN)/python deploy/warm.py --url http://127.0.0.1:$(PORT) --wait 120 &
	COSTFRONTIER_DB=$(DB) $(BIN)/python deploy/replica.py run app.py --server.port $(PORT)

dev: $(BIN)/costfrontier
	COSTFRONTIER_DB=$(DB) $(BIN)/costfrontier load-samples --if-empty
	COSTFRONTIER_DB=$(DB) $(BIN)/python deploy/replica.py run app.py --server.port $(PORT) \
		--server.fileWatcherType auto --server.runOnSave true --runner.postScriptGC true

# Every test, e2e and slow included, on $(TEST_WORKERS) pytest-xdist workers: the browser journeys in three units that
# three workers run in turn, the other long tests (e2e, slow) first on the fourth, then the short ones on whichever is
# free (tests/conftest.py). Four workers on two cores: a journey waits for pages to settle, and the fourth worker's
# tests fill those waits. `make test TEST_WORKERS=0` runs them in one process. The manual is tested with the code
# (tests/test_docs.py): `mkdocs build --strict`, the generated CLI and link-key references, every example in docs/.
TEST_WORKERS ?= 4

test: $(BIN)/costfrontier
	bash deploy/system-deps.sh
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist load

# Lint and every test that is neither a browser journey nor slow (the manual's tests included): a quick check for
# the edit-test loop. Slow is marked, or measured at 0.4 s or more by the last `make durations` (tests/durations.json).
check: $(BIN)/costfrontier
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n 2 --dist load -m "not e2e and not slow"

# Measure every test but the browser journeys on two workers and write tests/durations.json (what `make check` skips).
durations: $(BIN)/costfrontier
	COSTFRONTIER_DURATIONS=1 $(BIN)/python -m pytest -q -n 2 --dist load -m "not e2e"

# The manual (docs/, mkdocs.yml) served on http://127.0.0.1:$(DOCS_PORT), rebuilt on every save.
docs: $(BIN)/costfrontier
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

bench: $(BIN)/costfrontier
	$(BIN)/python bench/bench_core.py

clean:
	rm -rf $(VENV) $(DB) $(DB).wal
