"""The fuzzer's stats family (`fuzz/run.py --arrays --shapes stats`, fuzz/grammar_stats.py):
its statements appear only when switched on (every other seed keeps its program), and a
bounded run agrees with central differences in every mode."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

import run as fuzz_run  # noqa: E402


def test_stats_statements_only_when_switched_on():
    from generator import generate
    on = "\n".join(generate(seed, arrays=True, shapes=frozenset({"stats"})).source
                   for seed in range(40))
    for form in ("scipy.stats.", "loc=", "np.average(", "math.dist(", "scipy.linalg.cho_"):
        assert form in on, form
    for seed in range(10):
        plain = generate(seed, arrays=True).source
        assert "scipy.stats" not in plain and " st" not in plain.split("def f")[1]


@pytest.mark.slow
def test_bounded_stats_run_agrees_in_every_mode():
    results = [fuzz_run.check_seed(seed, timeout=60.0, arrays=True, shapes=frozenset({"stats"}))
               for seed in range(40_000, 40_010)]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] not in ("agreed", "skipped", "fd-noise")]
    assert not bad, f"fuzz/run.py --arrays --shapes stats --seed N --count 1: {bad}"
    assert sum(r["category"] == "agreed" for r in results) >= 5
