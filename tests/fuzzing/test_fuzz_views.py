"""A bounded run of the fuzzer's programs that write through views (fuzz/grammar_views.py,
`fuzz/run.py --views`): rows, columns, blocks, strided rows, views of views, rows passed to a
helper that writes them, `for row in A` and rebound aliases, each program checked in every
mode (forward, vector, reverse) against central differences on the python backend with its
annotation mix. Before writes through views were resolved, every one of them was refused."""

import os

import pytest
import run as fuzz_run

BOUNDED_SEED = 30_000
BOUNDED_COUNT = 12


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_bounded_view_fuzz_run_agrees_in_every_mode():
    old = os.environ.get("SRCAD_FUZZ_BACKEND")
    os.environ["SRCAD_FUZZ_BACKEND"] = "python"
    try:
        results = [fuzz_run.check_seed(seed, timeout=60.0, views=True)
                   for seed in range(BOUNDED_SEED, BOUNDED_SEED + BOUNDED_COUNT)]
    finally:
        if old is None:
            del os.environ["SRCAD_FUZZ_BACKEND"]
        else:
            os.environ["SRCAD_FUZZ_BACKEND"] = old
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] != "agreed"]
    assert not bad, f"view fuzz failures (fuzz/run.py --views --seed N --count 1): {bad}"
