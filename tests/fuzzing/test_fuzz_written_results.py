"""A bounded run of the fuzzer for a rule's result written in place afterwards and a rule given
one operand twice (`fuzz/run.py --arrays --shapes written-results`,
fuzz/grammar_written_results.py): every program agrees with central differences in forward,
vector and reverse mode or is refused, never answered wrong.
"""


import pytest
import run as fuzz_run

SEEDS = [1, 5, 7, 18, 35]  # the code before the fixes disagreed on each


@pytest.mark.slow
def test_written_results_agree_or_are_refused():
    results = [fuzz_run.check_seed(seed, timeout=60.0, arrays=True,
                                   shapes=frozenset({"written-results"})) for seed in SEEDS]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] not in ("agreed", "refused", "fd-noise")]
    assert not bad, f"fuzz/run.py --arrays --shapes written-results --seed N --count 1: {bad}"
    assert any(r["category"] == "agreed" for r in results)


def test_written_results_grammar_writes_each_form():
    from generator import generate
    texts = "\n".join(generate(seed, arrays=True, shapes=frozenset({"written-results"})).source
                      for seed in range(60))
    for form in ("np.exp(", "np.tanh(", "scipy.special.expit(", "[1:] *= ", "[1:] += ", " *= ",
                 "np.outer(v", "np.linalg.solve(2.0 * np.eye("):
        assert form in texts, form
    plain = generate(5, arrays=True).source
    assert "wr" not in plain.split("def f")[1]  # without the switch: the seed's program
