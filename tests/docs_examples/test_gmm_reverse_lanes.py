"""benchmarks/gradbench/gmm_reverse_lanes.py: gmm's reverse sweep with the points in lanes,
written by hand into srcad's generated numba code, keeps the bits of srcad's jacobian when the
sums run in order (each parameter's adjoint adds its terms in the order written), with the
last block of points partial and the triangle's rows both jammed and left over; reassociated
(the lanes summed ascending) it agrees with srcad's jacobian to rounding."""

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.gradbench import gmm_reverse_lanes as lanes  # noqa: E402
from srcad.gradbench.ports import gmm  # noqa: E402
from srcad.gradbench.ports.common import srcad_gradient  # noqa: E402

pytest.importorskip("numba")


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 7])
def test_lanes_keep_the_bits_in_order(monkeypatch, d):
    monkeypatch.delenv("SRCAD_NUMBA_REASSOCIATE", raising=False)
    p = gmm.Problem(gmm.generate(d, 3, 300, seed=d))
    expected = srcad_gradient(gmm.gmm_loops, p.independent, p.loop_constants(), "numba")()
    got = lanes.compiled_lanes(p)()
    for e, g in zip(expected, got):
        assert np.array_equal(e, g)
    # and both are the derivative: central differences of the primal on a few entries
    arrays = [a.copy() for a in p.independent]
    for which, index in [(0, (1,)), (1, (2, d - 1)), (2, (0, 0)), (3, (2, 0))]:
        h = 1e-6
        values = []
        for step in (h, -h):
            moved = [a.copy() for a in arrays]
            moved[which][index] += step
            values.append(gmm.gmm_loops(*moved, *p.loop_constants()))
        assert abs((values[0] - values[1]) / (2 * h) - got[which][index]) \
            <= 1e-6 * max(1.0, abs(got[which][index]))


@pytest.mark.slow
def test_lanes_reassociated_agree_to_rounding(monkeypatch):
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    p = gmm.Problem(gmm.generate(7, 3, 300, seed=11))
    expected = srcad_gradient(gmm.gmm_loops, p.independent, p.loop_constants(), "numba")()
    got = lanes.compiled_lanes(p)()
    for e, g in zip(expected, got):
        assert np.max(np.abs(e - g)) <= 1e-12 * np.max(np.abs(e))
