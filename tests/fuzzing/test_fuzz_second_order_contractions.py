"""A bounded run of the fuzzer's second-order programs through contractions
(fuzz/grammar_second_order_contractions.py, `fuzz/run.py --second-order --shapes
second-order-contractions`): np.einsum, np.tensordot, np.inner, multi_dot and stacked `@` of
matrices made of x, checked in every first-order mode, the Hessian against central
differences of srcad's gradient and against jax.hessian, and the composed transforms (third
order included). Before the fix every one was refused naming srcad's runtime."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

import run as fuzz_run  # noqa: E402

pytestmark = pytest.mark.slow


def test_bounded_second_order_contractions_fuzz_run_agrees_with_jax(monkeypatch):
    monkeypatch.setenv("SRCAD_FUZZ_BACKEND", "python")
    results = [fuzz_run.check_seed(seed, timeout=120.0, second_order=True,
                                   shapes=frozenset({"second-order-contractions"}))
               for seed in range(4)]
    bad = [(r["seed"], r["category"], r["signature"], r.get("modes")) for r in results
           if r["category"] != "agreed"
           or any(v != "agreed" for v in r["modes"].values())]
    assert not bad, f"second-order contraction fuzz failures: {bad}"
    assert all(r["modes"].get("jaxh") == "agreed" for r in results)
