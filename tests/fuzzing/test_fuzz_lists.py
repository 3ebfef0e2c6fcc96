"""A bounded run of the fuzzer's programs over lists of unknown length and parts of computed
arrays (fuzz/grammar_lists.py, `fuzz/run.py --lists`: filtered comprehensions kept in
variables, conditional appends, loops over the lists binding arrays, elements of computed
arrays): every mode of every program agrees with central differences on the python backend,
with its annotation mix (x, X each Const or Duplicated, a Const or Active).
"""


import pytest
import run as fuzz_run
from grammar_lists import generate

BOUNDED_SEED = 30_000
BOUNDED_COUNT = 6


@pytest.mark.slow
def test_bounded_lists_fuzz_run_agrees_in_every_mode():
    results = [fuzz_run.check_seed(seed, timeout=60.0, lists=True)
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + BOUNDED_COUNT)]
    bad = [(r["seed"], r["category"], r["signature"], r.get("annotations")) for r in results
           if r["category"] not in ("agreed", "fd-noise")]
    # the grammar writes only what srcad differentiates on python: a refusal is a wrong one
    assert not bad, f"lists fuzz failures (fuzz/run.py --lists --seed N --count 1): {bad}"


@pytest.mark.slow
def test_bounded_list_calls_fuzz_run_agrees_in_every_mode():
    # lists given other names, passed to helpers, returned, copied (grammar_list_calls.py)
    results = [fuzz_run.check_seed(seed, timeout=60.0, lists=True,
                                   shapes=frozenset({"list-calls"}))
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + 3)]
    bad = [(r["seed"], r["category"], r["signature"], r.get("annotations")) for r in results
           if r["category"] not in ("agreed", "fd-noise")]
    assert not bad, ("list-calls fuzz failures (fuzz/run.py --lists --shapes list-calls "
                     f"--seed N --count 1): {bad}")


def test_lists_generator_is_deterministic_and_writes_each_construct():
    assert generate(7).source == generate(7).source
    sources = [generate(s).source for s in range(BOUNDED_SEED, BOUNDED_SEED + 80)]
    for construct in (".append(", " if x[i] > ", "for v in x if", "break", "else:",
                      "np.mean(X, axis=0)[", "np.sum(X, axis=1)[i]", ".T[",
                      "for k in range(len(ys", ".extend([", ".pop()", "[0.0] * len(x)",
                      "[i % 3]", "] += x[i]"):
        assert any(construct in s for s in sources), construct


@pytest.mark.slow
def test_bounded_list_operations_fuzz_run_agrees_in_every_mode():
    results = [fuzz_run.check_seed(seed, timeout=60.0, lists=True, list_operations=True)
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + 4)]
    bad = [(r["seed"], r["category"], r["signature"], r.get("annotations")) for r in results
           if r["category"] not in ("agreed", "fd-noise")]
    assert not bad, ("list operations fuzz failures (fuzz/run.py --lists --list-operations "
                     f"--seed N --count 1): {bad}")


def test_list_operations_generator_writes_each_construct():
    """`--list-operations` (fuzz/grammar_list_operations.py) draws from its own stream: the
    programs of `--lists` alone never move elements."""
    sources = [generate(s, operations=True).source
               for s in range(BOUNDED_SEED, BOUNDED_SEED + 80)]
    for construct in (".pop(0)", ".insert(", "del ", "[1:3] = [", "] = [s * ", ":-1]",
                      ".extend(x)", ".extend(x[i]", "[0] * len(x)", ".pop() * ", "[1:]\n"):
        assert any(construct in s for s in sources), construct
    assert not any(".insert(" in generate(s).source
                   for s in range(BOUNDED_SEED, BOUNDED_SEED + 80))
@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_bounded_unbounded_lists_fuzz_run_agrees_in_every_mode():
    # `--lists --unbounded`: lists appended to in loops with no bound known before them
    results = [fuzz_run.check_seed(seed, timeout=60.0, lists=True, unbounded=True)
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + 4)]
    bad = [(r["seed"], r["category"], r["signature"], r.get("annotations")) for r in results
           if r["category"] not in ("agreed", "fd-noise")]
    assert not bad, f"fuzz failures (fuzz/run.py --lists --unbounded --seed N --count 1): {bad}"


def test_unbounded_lists_generator_writes_each_construct():
    sources = [generate(s, unbounded=True).source for s in range(BOUNDED_SEED, BOUNDED_SEED + 80)]
    for construct in ("while abs(t", "+= 2", "continue", "for j in range(k", "    while j"):
        assert any(construct in s for s in sources), construct
    assert generate(5).source != generate(5, unbounded=True).source
