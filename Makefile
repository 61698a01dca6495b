# DealerCare: `make help` lists the targets. `make run` and `make test` do every missing set-up step.
SHELL := /bin/bash
PY := .venv/bin/python
FLASK := .venv/bin/flask --app wsgi
PORT ?= 5000
PO := $(wildcard translations/*/LC_MESSAGES/messages.po)
MO := $(PO:.po=.mo)
ISLAND_SOURCES := $(shell find islands -type f -not -path 'islands/tests/*' 2>/dev/null)
LOCALES := sv_SE nb_NO fi_FI da_DK en_GB de_DE nl_NL
# The suite runs in pytest-xdist workers (one per core unless set), each with databases and a
# Redis database number of its own (tests/conftest.py); --dist loadgroup keeps the tests that
# share a costly fixture or must not share the machine in one worker.
TEST_WORKERS ?= auto
PYTEST_PARALLEL := .venv/bin/pytest -n $(TEST_WORKERS) --dist loadgroup

.PHONY: help run test test-all lighthouse fuzz faults scale-out a11y check lint format build setup db demo i18n-extract i18n-update i18n-check worker clean

help: ## Show the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

.venv/.installed: requirements.lock
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

translations/%/LC_MESSAGES/messages.mo: translations/%/LC_MESSAGES/messages.po .venv/.installed
	.venv/bin/pybabel -q compile -i $< -o $@

static/dist/manifest.json: node_modules/.installed $(ISLAND_SOURCES)
	npm run --silent build

static/dist/i18n/.built: $(PO) .venv/.installed static/dist/manifest.json
	$(FLASK) i18n-json >/dev/null
	touch $@

setup: .venv/.installed node_modules/.installed $(MO) static/dist/manifest.json static/dist/i18n/.built

build: setup ## Install dependencies, compile catalogues and bundle the islands

db: setup ## Migrate the database and load the demo data into an empty one
	$(FLASK) db upgrade
	$(FLASK) demo-data

run: db ## Set up what is missing, then serve on http://127.0.0.1:$PORT with gunicorn
	@if [ -n "$$REDIS_URL" ]; then $(FLASK) worker & fi; \
	$(FLASK) scheduler & \
	exec .venv/bin/gunicorn --config gunicorn.conf.py wsgi:app

worker: setup ## Run the RQ worker (needs REDIS_URL)
	$(FLASK) worker

test: setup check ## Lint, drift and catalogue checks, then the whole test suite (in parallel)
	npm test --silent
	$(PYTEST_PARALLEL) $(PYTEST_ARGS)

test-all: setup check ## make test at length: every page of every user walked, fuzzing at 100, timed gates
	npm test --silent
	A11Y_FULL=1 FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-100} $(PYTEST_PARALLEL) --timed $(PYTEST_ARGS)

lighthouse: setup ## The timed gates make test leaves out: Lighthouse's scores, paint times
	.venv/bin/pytest tests/browser --timed -m timed $(PYTEST_ARGS)

fuzz: setup ## The fuzzing gate at length: schemathesis with FUZZ_EXAMPLES (default 100) per call
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-100} .venv/bin/pytest tests/gates/test_fuzz.py -p no:cacheprovider $(PYTEST_ARGS)

faults: setup ## The fault and scale-out gates alone (private Redis and PostgreSQL), verbose
	.venv/bin/pytest tests/faults -v --durations=0 $(PYTEST_ARGS)

scale-out: setup ## N gunicorn nodes + M RQ workers on one address: cross-node checks, load run
	$(PY) bench/scale_out.py $(SCALE_OUT_ARGS)

a11y: setup ## The accessibility and budget gates over every page of every demo user (longer)
	A11Y_FULL=1 .venv/bin/pytest tests/browser/test_a11y.py tests/browser/test_budgets.py --timed $(PYTEST_ARGS)

check: lint i18n-check ## ruff lint + format check and the catalogue check

lint: .venv/.installed
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

format: .venv/.installed ## Format the code with ruff
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .

i18n-extract: .venv/.installed
	.venv/bin/pybabel -q extract -F babel.cfg -k _l -k _k -c NOTE: --sort-output -w 100 \
		--project DealerCare -o translations/messages.pot .

i18n-update: i18n-extract ## Extract strings and update every catalogue
	for l in $(LOCALES); do \
		if [ -f translations/$$l/LC_MESSAGES/messages.po ]; then \
			.venv/bin/pybabel -q update --no-fuzzy-matching --ignore-obsolete -w 100 -i translations/messages.pot -d translations -l $$l; \
		else .venv/bin/pybabel -q init -i translations/messages.pot -d translations -l $$l; fi; \
	done
	$(PY) -m app.core.i18n_check --fill-english

i18n-check: .venv/.installed ## Fail on a stale catalogue or an untranslated or fuzzy entry
	$(PY) -m app.core.i18n_check

clean: ## Remove what the build made (not the database)
	rm -rf static/dist node_modules/.installed $(MO)
