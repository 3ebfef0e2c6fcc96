"""The fuzzer's index-array writes (`fuzz/run.py --arrays --shapes index-writes`,
fuzz/grammar_index_writes.py): its statements appear only when switched on (every other seed
keeps its program), and a bounded run agrees with central differences in every mode."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

import run as fuzz_run  # noqa: E402


def test_index_writes_only_when_switched_on():
    from generator import generate
    on = "\n".join(generate(seed, arrays=True, shapes=frozenset({"index-writes"})).source
                   for seed in range(40))
    for form in ("[idx] +=", "[idx] -=", "[idx] *=", "[idx] =", "np.array(["):
        assert form in on, form
    for seed in range(10):
        assert generate(seed, arrays=True).source == generate(seed, arrays=True).source
        assert " iy" not in generate(seed, arrays=True).source


@pytest.mark.slow
def test_bounded_index_writes_run_agrees_in_every_mode():
    results = [fuzz_run.check_seed(seed, timeout=60.0, arrays=True,
                                   shapes=frozenset({"index-writes"}))
               for seed in range(31_000, 31_010)]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] not in ("agreed", "skipped", "fd-noise")]
    assert not bad, f"fuzz/run.py --arrays --shapes index-writes --seed N --count 1: {bad}"
    assert sum(r["category"] == "agreed" for r in results) >= 5
