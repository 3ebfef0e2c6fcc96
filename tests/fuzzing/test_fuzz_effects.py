"""A bounded run of the fuzzer's programs with calls made for their effect
(fuzz/grammar_effects.py, `fuzz/run.py --effects`): `np.copyto`, `z.fill`, `y.sort()` on
values that carry a derivative must be refused in every mode, naming the call's line;
`np.add.at` on them must agree with central differences in forward and vector mode and be
refused by line in reverse mode; the same calls on constants must agree in every mode."""

import os

import grammar_effects
import pytest
import run as fuzz_run
from generator import generate

SEEDS = range(40_000, 40_016)
CALLS = ("np.copyto(z", "z.fill(", "y.sort()", "np.add.at(z", "c = np.linspace")


def _run(seed):
    old = os.environ.get("SRCAD_FUZZ_BACKEND")
    os.environ["SRCAD_FUZZ_BACKEND"] = "python"
    try:
        return fuzz_run.check_seed(seed, timeout=60.0, effects=True)
    finally:
        if old is None:
            del os.environ["SRCAD_FUZZ_BACKEND"]
        else:
            os.environ["SRCAD_FUZZ_BACKEND"] = old


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_bounded_effect_fuzz_run_refuses_by_line_and_agrees_elsewhere():
    programs = {seed: generate(seed, effects=True) for seed in SEEDS}
    covered = {call for p in programs.values() for call in CALLS if call in p.source}
    assert covered == set(CALLS), f"the bounded seeds miss {set(CALLS) - covered}"
    results = [_run(seed) for seed in SEEDS]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] not in ("agreed", "refused")
           or r["category"] == "refused" and not r["required_refusal"]]
    assert not bad, f"effect fuzz failures (fuzz/run.py --effects --seed N --count 1): {bad}"
    for r in results:  # np.add.at on derivative values runs forward, is refused in reverse
        if "np.add.at(z" in programs[r["seed"]].source:
            # (reverse mode's lanes, the batched reverse check, refuse with it)
            assert r["modes"] == {"fwd": "agreed", "vec": "agreed", "rev": "refused",
                                  "lanes": "refused"}, r


def test_a_refusal_naming_another_line_or_missing_is_caught():
    seed = next(s for s in SEEDS if "z.fill(" in generate(s, effects=True).source)
    program = generate(seed, effects=True)
    line = program.refusals["rev"]
    refused = ("refused", "UnsupportedCallError: ...", f"/tmp/fz.py:{line}:5: call: ...")
    per_mode = dict.fromkeys(program.refusals, refused)
    assert grammar_effects.judge(program.refusals, per_mode)[0] == "refused"
    elsewhere = ("refused", "UnsupportedCallError: ...", f"/tmp/fz.py:{line + 1}:5: call")
    assert grammar_effects.judge(program.refusals, dict(per_mode, vec=elsewhere))[0] \
        == "disagreed"
    answered = ("agreed", None, "")
    assert grammar_effects.judge(program.refusals, dict(per_mode, rev=answered))[0] \
        == "disagreed"
