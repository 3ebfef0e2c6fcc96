"""srcad fuzz failure: found by hand from the `--nests` sum-loop forms (an inner loop whose trip
count moves with the outer index, `range(len(x) - i)`); not yet fixed when written.

signature: reverse <J^T u, v> disagrees with finite differences (numba backend only; forward,
vector and the python backend agree)

reverse <J^T u, v> = -37.78887088364752 disagrees with finite differences -42.37043418520159

The numba reverse reserves the outer loop's own pushes (`q`, one per outer iteration) once
before the outer loop, `reserve_tape(tape, tape_size + len(range(len(c))))`; the inner loop's
trip count changes with `i`, so it reserves inside the outer body,
`tape = reserve_tape(tape, tape_size + len(range(len(x) - i)))`, counted from the current
tape_size: that reservation does not include the outer push that follows the inner loop
(`tape[tape_size] = q`). With the 64-value starting tape and len(x) = 32, iteration i = 1 needs
exactly 33 + 31 = 64, the tape is not grown, and `q` is written at tape[64], past the end
(NUMBA_BOUNDSCHECK=1: IndexError); iteration i = 2 grows the tape by copying its first 64
values, so the reverse sweep reads garbage for that `q`. (Reproduces with the initial tape size
of srcad/build/running.py, np.empty(64); any fix makes it pass whatever that size.)

Reproduce: check_grads(f, *args(), backend='numba') from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

BACKEND = "numba"  # tape reservation (srcad/transform/reverse/control_flow.py, _reserve) is numba only


def f(x, c, a):
    acc = 0.0
    for i in range(len(c)):
        q = 0.0
        for k in range(len(x) - i):
            q += c[i] * math.sin(x[k] * a)
        acc += q * q
    return acc


def args():
    return (Duplicated(np.linspace(-1.4, 1.3, 32), np.zeros((32,))),
            Duplicated(np.array([0.5, -0.7, 1.1, 0.3]), np.zeros((4,))), Active(1.3))
