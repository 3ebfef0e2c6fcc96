"""A bounded, seeded run of the random-program fuzzer (fuzz/generator.py, fuzz/run.py), and the
minimized programs it found (tests/regressions/*.py, each a module with `f` and `args()`, and
`REFUSED`, a pattern of the refusal, for a program srcad now refuses).

Every generated program must either be refused with a SrcadError or have forward, vector and
reverse derivatives that agree with central finite differences. `make fuzz` runs thousands.
"""

import glob
import importlib.util
import os
import sys

import pytest

from srcad.errors import SrcadError
from srcad.testing import check_grads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

import run as fuzz_run  # noqa: E402

BOUNDED_SEED = 10_000
BOUNDED_COUNT = 60
# The generator writes programs srcad is meant to differentiate, so a refusal is a case that
# did not get answered, not a pass: at most this many (none today) before the test fails.
MAX_REFUSED = BOUNDED_COUNT // 10


@pytest.mark.slow
def test_bounded_fuzz_run_has_no_disagreement_and_no_crash():
    results = [fuzz_run.check_seed(seed, timeout=20.0)
               for seed in range(BOUNDED_SEED, BOUNDED_SEED + BOUNDED_COUNT)]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] in ("disagreed", "crashed", "timeout")]
    checked = [r for r in results if r["category"] in ("agreed", "refused")]
    assert not bad, f"fuzz failures (reproduce with fuzz/run.py --seed N --count 1): {bad}"
    assert len(checked) >= BOUNDED_COUNT * 3 // 4, "too few checkable programs generated"
    refusals = [(r["seed"], r["signature"]) for r in results if r["category"] == "refused"]
    assert len(refusals) <= MAX_REFUSED, f"{len(refusals)} programs refused: {refusals}"


def test_generator_is_deterministic():
    from generator import generate
    assert generate(123).source == generate(123).source
    assert generate(123).source != generate(124).source


REGRESSIONS = sorted(glob.glob(os.path.join(ROOT, "tests", "regressions", "*.py")))


def _load(path):
    name = "srcad_regression_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", REGRESSIONS, ids=[os.path.basename(p) for p in REGRESSIONS])
def test_regression_program(path):
    module = _load(path)
    backends = getattr(module, "BACKENDS", (getattr(module, "BACKEND", "python"),))
    for backend in backends:
        if backend == "numba":
            pytest.importorskip("numba")
        refused = getattr(module, "REFUSED", None)  # a program srcad now refuses, by name
        if refused is None:
            check_grads(module.f, *module.args(), backend=backend)
            continue
        with pytest.raises(SrcadError, match=refused) as error:
            check_grads(module.f, *module.args(), backend=backend)
        assert error.value.filename == path
