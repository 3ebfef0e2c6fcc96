PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: venv demo test test-all lint fuzz bench mutate docs dist screenshots

venv: $(STAMP)

# The editable finder maps only the packages present at install time, so reinstall once
# srcad/__init__.py exists (and whenever it changes).
$(STAMP): pyproject.toml $(wildcard srcad/__init__.py)
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -e '.[dev]'
	touch $(STAMP)

demo: venv
	$(VENV)/bin/python examples/mixture.py

# The suite runs on every core (pytest-xdist); each worker keeps its own compile caches.
# The 25 slowest tests are listed at the end, to see where the time goes.
# `make test`, the development loop (a few minutes): every test but those marked slow (numba-heavy
# programs, bounded fuzz runs); every rule, mode and stage on the python backend and numba
# smoke tests. `make test-all` runs everything (CI, .ci/run).
PYTEST := $(VENV)/bin/python -m pytest -q -n auto --durations=25

test: venv
	$(PYTEST) -m "not slow"

# `make test-all` runs in three parts, each in fresh worker processes: a worker's memory grows
# with every program numba compiles (over 10 GB each after the whole suite in one go, where the
# machine starts reclaiming pages and slows down). Every part runs; the target fails if any did.
TEST_PARTS := "tests/rules" "tests/numba_backend tests/fuzzing tests/runtime" \
	"--ignore=tests/rules --ignore=tests/numba_backend --ignore=tests/fuzzing --ignore=tests/runtime"

test-all: venv
	@status=0; for part in $(TEST_PARTS); do $(PYTEST) $$part || status=1; done; exit $$status

# ruff, and the import contracts of pyproject.toml (srcad's packages import one way)
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

# Side-by-side benchmark suite: installs the optional contenders (jax, autograd,
# matplotlib, numba) and writes docs/benchmarks.md and docs/benchmarks.png.
# BENCH_ARGS=--quick for a smoke run, BENCH_ARGS="--pin 0" to pin to one CPU.
# BENCH_ARGS="--only arrays" for one problem; OPENBLAS_NUM_THREADS=1 make bench for steady
# NumPy times on a loaded machine (the setting is recorded in the machine table).
bench: venv
	$(VENV)/bin/pip install -q -e '.[dev,bench]' numba
	$(VENV)/bin/python benchmarks/run.py $(BENCH_ARGS)

# Random-program fuzzing (fuzz/run.py): thousands of generated programs checked in forward,
# vector and reverse mode against finite differences; failures land in fuzz/failures/.
fuzz: venv
	$(VENV)/bin/python fuzz/run.py --count 2000

# Mutation check (scripts/mutate.py, docs/fuzzing.md): every rule of the derivative table and a
# set of mechanisms broken on purpose, one at a time, in a copy of the tree; the fast test
# subset must fail on each. Not part of `make test` (about 25 minutes).
mutate: venv
	$(VENV)/bin/python scripts/mutate.py

# The documentation site (mkdocs.yml): mkdocs-material, the API reference from the docstrings,
# the gallery and examples pages generated at build time; warnings are errors.
docs: venv
	$(VENV)/bin/pip install -q -e '.[dev,docs]'
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# PNG screenshots of the site's home, getting started, gallery, benchmark and GradBench pages in
# docs/screenshots/ (not in git: to look at the site as a reader sees it): the site built, then rendered by Debian's headless
# chromium (apt-get install chromium), with no network (scripts/screenshots.py).
screenshots: venv
	$(VENV)/bin/pip install -q -e '.[dev,docs]'
	$(VENV)/bin/python scripts/screenshots.py

# A wheel of srcad in dist/ (pip install "dist/srcad-<version>-py3-none-any.whl[numba]"
# installs it elsewhere, with its extras); no dependencies are built or bundled.
dist:
	$(PYTHON) -m pip wheel --no-deps --wheel-dir dist .

# GradBench's own eval programs (vendored in third_party/gradbench) against srcad's tool on both
# backends and GradBench's JAX tool, connected as GradBench's CLI connects them; each eval judges
# the outputs itself against GradBench's C++ reference (built once with g++ in build/gradbench;
# needs Debian's nlohmann-json3-dev). Writes build/gradbench/harness.json and the harness section
# of docs/gradbench.md. GRADBENCH_ARGS="--sizes default" for GradBench's own sizes, "--sizes
# small" for a smoke run, "--evals lse llsq" for some. Not part of CI (too long).
.PHONY: gradbench
gradbench: venv
	test -f /usr/include/nlohmann/json.hpp || apt-get install -y -q nlohmann-json3-dev
	$(VENV)/bin/python benchmarks/gradbench/harness_suite.py $(GRADBENCH_ARGS)
