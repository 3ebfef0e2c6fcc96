"""Bounded runs of the fuzzer for tuple and list literals passed to library calls (`fuzz/run.py
--arrays --shapes literal-arguments`, fuzz/grammar_literal_arguments.py) and for prepared
operators re-called with new values, Constant shapes and ints (fuzz/prepared_calls.py):
every program agrees with central differences or is refused, never answered wrong.
"""


import prepared_calls
import pytest
import run as fuzz_run

SEEDS = range(30_000, 30_008)


@pytest.mark.slow
def test_literal_arguments_agree_or_are_refused():
    results = [fuzz_run.check_seed(seed, timeout=60.0, arrays=True,
                                   shapes=frozenset({"literal-arguments"})) for seed in SEEDS]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] not in ("agreed", "refused", "fd-noise")]
    assert not bad, f"fuzz/run.py --arrays --shapes literal-arguments --seed N --count 1: {bad}"
    assert any(r["category"] == "agreed" for r in results)


def test_literal_grammar_writes_both_forms():
    from generator import generate
    texts = "\n".join(generate(seed, arrays=True, shapes=frozenset({"literal-arguments"})).source
                      for seed in range(40))
    for form in ("np.mean((", "np.mean([", "np.linalg.norm(", "np.dot(", "axis=0", "np.maximum(",
                 "np.minimum(") + ("np.nanstd(", "np.nanquantile(", "np.nanvar(", "np.nanprod("):
        assert form in texts or form in ("np.nanvar(", "np.nanmedian(", "np.nanprod("), form
    plain = generate(5, arrays=True).source
    assert "lit" not in plain.split("def f")[1]  # without the switch: the seed's program


@pytest.mark.parametrize("seed", range(12))
def test_prepared_calls_agree_or_refuse(seed):
    outcome, what = prepared_calls.check(seed, "python",
                                         ("gradient", "jacobian", "pushforward"))
    assert outcome in ("agreed", "mismatch refused", "skipped"), (seed, what)
