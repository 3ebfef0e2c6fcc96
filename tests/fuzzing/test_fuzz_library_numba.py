"""The fuzzer's `library-numba` family (`fuzz/run.py --arrays --shapes library-numba`,
fuzz/grammar_library_rules.py): the forms the numba backend compiled last appear only when
switched on (every other seed keeps its program), and a bounded numba run agrees with central
differences in every mode."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

import run as fuzz_run  # noqa: E402

SHAPES = frozenset({"library-numba"})


def test_library_numba_statements_only_when_switched_on():
    from generator import generate
    on = "\n".join(generate(seed, arrays=True, shapes=SHAPES).source for seed in range(17))
    for form in ("math.dist(", "multigammaln(", "np.correlate(", "np.kron(", "axis=None"):
        assert form in on, form
    for seed in range(3):
        plain = generate(seed, arrays=True).source
        assert plain == generate(seed, arrays=True, shapes=frozenset()).source
        assert "multigammaln" not in plain and "math.dist" not in plain


@pytest.mark.slow  # numba compiles each program in three modes
def test_bounded_library_numba_run_agrees_on_numba(monkeypatch):
    monkeypatch.setenv("SRCAD_FUZZ_BACKEND", "numba")  # fuzz/run.py --backend numba
    results = [fuzz_run.check_seed(seed, timeout=600.0, arrays=True, shapes=SHAPES)
               for seed in range(100, 103)]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] not in ("agreed", "skipped", "fd-noise")]
    assert not bad, f"fuzz/run.py --arrays --shapes library-numba --backend numba: {bad}"
