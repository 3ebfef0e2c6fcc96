"""A bounded run of fuzz programs run as IPython and Jupyter run a cell (`fuzz/run.py
--cells`, fuzz/cells.py): one statement at a time, the text kept under an `<ipython-input-...>`
name. Before srcad's source check recognised code compiled that way, every such program was
refused with StaleSourceError."""

import sys

import pytest
import run as fuzz_run

BOUNDED_SEED = 52_000


def _bad(results):
    return [(r["seed"], r["category"], r["signature"]) for r in results
            if r["category"] != "agreed" and not r.get("expected_refusal")]


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_bounded_cell_fuzz_run_agrees_in_every_mode(monkeypatch):
    monkeypatch.setenv("SRCAD_FUZZ_BACKEND", "python")
    monkeypatch.setenv("SRCAD_FUZZ_CELLS", "1")
    results = [fuzz_run.check_seed(seed, timeout=60.0)
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + 4)]
    results += [fuzz_run.check_seed(seed, timeout=60.0, arrays=True, lambdas=True)
                for seed in range(BOUNDED_SEED, BOUNDED_SEED + 3)]
    assert not _bad(results), f"cell fuzz failures (fuzz/run.py --cells): {_bad(results)}"


def test_a_cell_is_compiled_one_statement_at_a_time():
    import cells

    module, name = cells.load_cell("import math\ndef f(x):\n    return math.sin(x)\n")
    try:
        assert module.f.__code__.co_filename.startswith("<ipython-input-")
        # compiled with `import math` in view, the call would load math.sin differently
        whole = {}
        exec(compile("import math\ndef f(x):\n    return math.sin(x)\n",
                     module.f.__code__.co_filename, "exec"), whole)
        assert whole["f"].__code__ != module.f.__code__
    finally:
        sys.modules.pop(name, None)
