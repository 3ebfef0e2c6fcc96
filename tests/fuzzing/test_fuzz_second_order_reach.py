"""A bounded run of the fuzzer's second-order programs of what first order reaches
(fuzz/grammar_second_order_reach.py, `fuzz/run.py --second-order --shapes
second-order-reach`): while loops carrying array states, cholesky / solve /
solve_triangular / det, np.where inline; each checked in every first-order mode, its Hessian
against central differences of srcad's gradient and against jax.hessian of the same program.
Before the fixes these were refused (while loops, cholesky, np.where inline)."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

import run as fuzz_run  # noqa: E402

pytestmark = pytest.mark.slow


def bounded_run(monkeypatch, shape, seeds, timeout):
    """The fuzzer's outcomes of the second-order programs of `shape` on the python backend."""
    monkeypatch.setenv("SRCAD_FUZZ_BACKEND", "python")
    return [fuzz_run.check_seed(seed, timeout=timeout, second_order=True,
                                shapes=frozenset({shape})) for seed in range(seeds)]


def test_bounded_second_order_reach_fuzz_run_agrees_with_jax(monkeypatch):
    results = bounded_run(monkeypatch, "second-order-reach", 6, 60.0)
    # the composed-transforms check may refuse a third derivative srcad cannot take through
    # its own derivative code: a refusal there is not a failure
    bad = [(r["seed"], r["category"], r["signature"], r.get("modes")) for r in results
           if r["category"] not in ("agreed", "skipped")
           and (any(v not in ("agreed", "skipped") for m, v in r["modes"].items()
                    if m != "compose") or r["modes"].get("compose") not in (None, "agreed",
                                                                            "refused"))]
    assert not bad, f"second-order reach fuzz failures: {bad}"
    checked = [r for r in results if r["modes"] and r["modes"].get("hess") == "agreed"]
    assert len(checked) >= 4
    assert all(r["modes"].get("hess") == r["modes"].get("jaxh") == "agreed" for r in checked)


# the contraction grammar (fuzz/grammar_second_order_contractions.py): np.einsum,
# np.tensordot, np.inner, multi_dot and stacked @ of matrices made of x, every mode agreeing
# (the composed transforms' third derivatives too); before the einsum adjoint had its own
# rule every one was refused naming srcad's runtime
def test_bounded_second_order_contractions_fuzz_run_agrees_with_jax(monkeypatch):
    results = bounded_run(monkeypatch, "second-order-contractions", 4, 120.0)
    bad = [(r["seed"], r["category"], r["signature"], r.get("modes")) for r in results
           if r["category"] != "agreed"
           or any(v != "agreed" for v in r["modes"].values())]
    assert not bad, f"second-order contraction fuzz failures: {bad}"
    assert all(r["modes"].get("jaxh") == "agreed" for r in results)
