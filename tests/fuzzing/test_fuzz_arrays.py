"""A bounded run of the fuzzer's whole-array programs (fuzz/grammar_arrays.py, `fuzz/run.py
--arrays`): every mode (forward, vector, reverse) of every program agrees with central
differences on the python backend, with its annotation mix (W, x, b each Const or Duplicated,
a Const or Active); under numba, a program is either answered correctly or refused with a
SrcadError, never a crash or a disagreement.
"""

import os
import re

import pytest
import run as fuzz_run

BOUNDED_SEED = 20_000
BOUNDED_COUNT = 20


def _check(seeds, backend):
    old = os.environ.get("SRCAD_FUZZ_BACKEND")
    os.environ["SRCAD_FUZZ_BACKEND"] = backend
    try:
        return [fuzz_run.check_seed(seed, timeout=60.0, arrays=True) for seed in seeds]
    finally:
        if old is None:
            del os.environ["SRCAD_FUZZ_BACKEND"]
        else:
            os.environ["SRCAD_FUZZ_BACKEND"] = old


@pytest.mark.slow
def test_bounded_array_fuzz_run_agrees_in_every_mode():
    results = _check(range(BOUNDED_SEED, BOUNDED_SEED + BOUNDED_COUNT), "python")
    # fd-noise: central differences failed at eps=1e-6 and agreed at another step, in every
    # mode alike (seed 20018's products of hypot and outer products): not a disagreement
    bad = [(r["seed"], r["category"], r["signature"], r.get("annotations")) for r in results
           if r["category"] not in ("agreed", "refused", "fd-noise")]
    assert not bad, f"array fuzz failures (fuzz/run.py --arrays --seed N --count 1): {bad}"
    # the grammar writes only what srcad differentiates on python: a refusal is a wrong one
    refused = [(r["seed"], r["signature"]) for r in results if r["category"] == "refused"]
    assert not refused, f"programs refused: {refused}"
    consts = [r for r in results if r["category"] == "agreed" and ":const" in r["annotations"]]
    assert len(consts) >= BOUNDED_COUNT // 4, "too few answered programs with a Const argument"


@pytest.mark.slow
def test_array_programs_under_numba_are_answered_or_refused():
    pytest.importorskip("numba")
    # three programs: numba compiles each in every mode, up to a minute a program (more:
    # python fuzz/run.py --backend numba --arrays --seed 20000 --count N)
    results = _check(range(BOUNDED_SEED, BOUNDED_SEED + 3), "numba")
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] not in ("agreed", "refused")]
    assert not bad, f"array fuzz failures under numba: {bad}"
    assert all(r["numba_array_refusals"] or r["category"] == "agreed" for r in results)


def test_array_grammar_covers_the_primitives():
    """Over 60 seeds the array programs use every construct family the grammar promises."""
    from generator import generate
    texts = [generate(seed, arrays=True).source for seed in range(60)]
    body = "\n".join(t.split("def f(W, x, b, a, idx):")[1] for t in texts)
    for pattern in [r"np\.(sum|mean)\([^\n]*axis=", r"keepdims=True", r"@|np\.dot\(",
                    r"np\.outer\(", r"\.T\b", r"\w\[\d+:\d+\]", r"\[idx\]",
                    r"np\.(concatenate|hstack)\(\[", r"np\.(stack|vstack)\(\[",
                    r"np\.expand_dims|np\.reshape|\[:, None\]", r"\bfor t\d+ in range",
                    r"\bz\d+\[[^\]]*\] [-+]?= ", r"h\d+ = np\.tanh\(",
                    r"np\.cumsum\(", r"np\.linalg\.(solve|inv|det)\(",
                    r"\b(h\d+) = np\.(sum|mean)\(\1 \* "]:
        assert re.search(pattern, body), f"no program uses {pattern}"
    assert all(re.search(r"^    return ", t, re.M) for t in texts)


def test_array_programs_only_with_the_switch():
    """Without `arrays` a seed gives its plain program (f(y, x, a[, n]) or f(x, a))."""
    from generator import generate
    for seed in range(30):
        plain = generate(seed).source
        assert "def f(W, x, b, a, idx)" not in plain
        assert generate(seed).source == plain
        assert "def f(W, x, b, a, idx)" in generate(seed, arrays=True).source
