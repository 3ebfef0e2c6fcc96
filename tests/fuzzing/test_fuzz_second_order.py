"""A bounded run of the fuzzer's second-order programs (fuzz/grammar_second_order.py,
`fuzz/run.py --second-order`): local arrays updated in part by constants, f writing its input,
early returns in loops; each program checked in forward, vector and reverse mode against
central differences, and its Hessian against central differences of srcad's gradient (hvp
against the Hessian), on the python backend. Before the fixes these found wrong forward
tangents, zero Hessians and wrong reverse gradients."""


import pytest
import run as fuzz_run

BOUNDED_SEED = 0
BOUNDED_COUNT = 8


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_bounded_second_order_fuzz_run_agrees(monkeypatch):
    monkeypatch.setenv("SRCAD_FUZZ_BACKEND", "python")
    results = [fuzz_run.check_seed(seed, timeout=60.0, second_order=True)
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + BOUNDED_COUNT)]
    # the composed-transforms check (fuzz/composition_check.py) may refuse a third derivative
    # srcad cannot take through its own derivative code: a refusal there is not a failure
    bad = [(r["seed"], r["category"], r["signature"], r["modes"]) for r in results
           if r["category"] != "agreed" and not r.get("expected_refusal")
           and (any(v != "agreed" for m, v in r["modes"].items() if m != "compose")
                or r["modes"].get("compose") not in (None, "agreed", "refused"))]
    assert not bad, f"second-order fuzz failures (fuzz/run.py --second-order): {bad}"
    assert all(r["modes"].get("hess") == "agreed" for r in results)
    assert sum(r["modes"].get("compose") == "agreed" for r in results) >= BOUNDED_COUNT // 2
