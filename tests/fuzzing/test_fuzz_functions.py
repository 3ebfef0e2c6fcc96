"""A bounded run of the fuzzer's programs passing functions around (fuzz/grammar_functions.py,
`fuzz/run.py --functions`): lambdas chosen by a conditional expression, lambdas and calls of
helpers in its arms, lambdas, nested defs and module-level functions passed to helpers (and
on), defs in loops and branches, `p op= e` on an array argument, each program checked in every
mode (forward, vector, reverse) against central differences on the python backend with its
annotation mix. Before these were lowered, every one of them was refused."""


import pytest
import run as fuzz_run

BOUNDED_SEED = 40_000
BOUNDED_COUNT = 6


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_bounded_function_fuzz_run_agrees_in_every_mode(monkeypatch):
    monkeypatch.setenv("SRCAD_FUZZ_BACKEND", "python")
    results = [fuzz_run.check_seed(seed, timeout=60.0, functions=True)
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + BOUNDED_COUNT)]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] != "agreed" and not r.get("expected_refusal")]
    assert not bad, f"function fuzz failures (fuzz/run.py --functions --seed N --count 1): {bad}"
