# Lateral: `make run` serves the demo city, `make test` runs every test.
# Both set up what they need first (a virtualenv and SpatiaLite).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
FLASK  := $(BIN)/flask --app server
HOST   ?= 127.0.0.1
PORT   ?= 5000
PYTEST_ARGS ?=

.PHONY: setup setup-dev run test lint mypy-baseline bench soak lock translations clean

$(BIN)/python:
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { scripts/need-packages python3-venv && rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }

# The run-time packages (requirements.txt, as deploy/Containerfile installs them), and on
# top of them the test, lint and bench tools (requirements-dev.txt, which installs
# requirements.txt too). Each stamp is remade when its files change.
$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install -q -r requirements-dev.txt
	@touch $@

setup: $(VENV)/.installed
	@scripts/need-packages libsqlite3-mod-spatialite

setup-dev: setup $(VENV)/.installed-dev

run: setup
	$(FLASK) db upgrade
	$(FLASK) demo seed --if-empty
	$(FLASK) checklists load
	@echo ""
	@echo "  Lateral is serving the demo city on http://$(HOST):$(PORT)"
	@echo "  Log in as inspector, superintendent, clerk, admin or plumber; password: arcadia-demo"
	@echo ""
	@# The job queue's worker (long work: the rules run), stopped with the server.
	$(FLASK) jobs worker & worker=$$!; trap "kill $$worker" EXIT INT TERM; \
	$(BIN)/gunicorn --bind $(HOST):$(PORT) --workers 2 --threads 4 --access-logfile - 'server:create_app()'

test: setup-dev
	$(BIN)/pytest $(PYTEST_ARGS)

# Lint (ruff, at ruff.toml's line length), the import contracts (.importlinter) and types
# (mypy, failing only on errors not in mypy-baseline.txt). .ci/run runs it before the tests.
lint: setup-dev
	$(BIN)/ruff check server gis offline_client tests bench
	$(BIN)/lint-imports --no-cache --no-logo
	VENV_BIN=$(BIN) scripts/typecheck

# Record the current mypy errors as the baseline (after fixing some).
mypy-baseline: setup-dev
	VENV_BIN=$(BIN) scripts/typecheck --sync

bench: setup-dev
	$(BIN)/python bench/run_all.py $(BENCH)

# Field sync through a faulty network while the server is killed, then a verifier
# (bench/soak.py); SOAK_ROUNDS=1000 make soak for the long one.
SOAK_ROUNDS ?= 40
soak: setup-dev
	$(BIN)/python bench/soak.py --rounds $(SOAK_ROUNDS)

# Remake requirements.txt and requirements-dev.txt after changing setup.cfg's install_requires
# or requirements-dev.in (scripts/lock; LOCK_ARGS=--upgrade for the newest that fit).
lock:
	scripts/lock $(LOCK_ARGS)

# The portal's words (docs/portal.md, "Languages"): extract them from its templates and
# Python into messages.pot, merge that into each language's .po (translate what is new
# there), compile the .mo files, which are committed: a clean clone serves them as they are.
I18N := server/portal/translations
translations: setup
	PYTHONPATH=. $(BIN)/pybabel extract -F $(I18N)/babel.cfg -k N_ -k lazy --add-comments=Translators: \
		--no-location --sort-output --project=Lateral --copyright-holder="Lateral's authors" -o $(I18N)/messages.pot .
	$(BIN)/pybabel update -i $(I18N)/messages.pot -d $(I18N) --width=100 --ignore-obsolete
	$(BIN)/pybabel compile -d $(I18N) --statistics

clean:
	rm -rf $(VENV) instance .pytest_cache
