"""srcad fuzz failure: seed 10000 (as generated); crashed

signature: IndentationError at srcad/compiler.py:compile_source: expected an indented block after '_' statement on line N (<srcad f_reverse #N>, line N)

File "/work/main/srcad/api.py", line 158, in <lambda>
    return cache.lookup_or_build(key, lambda: build(f, request))
                                              ^^^^^^^^^^^^^^^^^
  File "/work/main/srcad/pipeline.py", line 91, in build
    function = compile_source(source, name, namespace, parsed.filename)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/srcad/compiler.py", line 29, in compile_source
    code = compile(source, filename, "exec")
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "<srcad f_reverse #0>", line 68
    neg = -(t6 if t6 < 0.0 else t6)
IndentationError: expected an indented block after 'for' statement on line 65

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401


def h0(u, v):
    for i1 in range(1, 4):
        v = i1 * (float(i1)) if not min(float(i1), (1.2) / (i1 + 1.0)) >= v else u
    return -(u), np.exp(-(0.75) * (0.75))


def h1(arr, t):
    for i2 in range(len(arr)):
        arr[i2] = t
        arr[(i2 + 0) % len(arr)] += (t - ((i2 + 0.5)) if i2 < 1 else t)
    t3 = (arr[-1]) * ((arr[-2]) / (1.5 + (arr[-1]) * (arr[-1])))
    k4 = 0
    while k4 < 5 and t3 <= -1.0:
        k4 += 1
        if t3 > 0.5:
            t += math.log(1.0 + (0.6 - (arr[(k4 + 1) % len(arr)])) * (0.6 - (arr[(k4 + 1) % len(arr)])))
    return t3 + (0.5 + (arr[(k4 + 1) % len(arr)]) ** 2) ** 0.5


def f(y, x, a):
    z5 = np.zeros((len(x), 2))
    t6 = (a) * (math.fabs(x[-4]))
    t7, t8 = h0(y[0], x[0])
    y[-3] -= math.sin(-((t6 if t6 < 0.0 else t6)))
    t9 = max((0.5 + ((0.1) / (2.0 * 2.0 + 0.5)) ** 2) ** 0.5, z5[4, -1])
    k10 = 0
    while True:
        k10 += 1
        if not y[-2] <= -1.0:
            break
        if t8 < -1.0:
            k11 = 0
            while k11 < 4 and k10 % 3 != 1:
                k11 += 1
                a -= math.log(1.0 + (0.1 * k10) * (0.1 * k10))
        else:
            t12 = (math.atan2((0.1) ** 2, 2.0 + math.cos((0.1) ** 2))) ** 2
        if k10 >= 4 or math.pow(((k10 + 0.5)) ** 2, 2.0) >= math.pow(0.3, 2.0):
            break


def args():
    return (
        Duplicated(np.array([0.05, -0.229, 0.223, -0.852]), np.zeros((4,))),
        Duplicated(np.array([-0.99, 0.859, -0.279, -0.205, 0.78]), np.zeros((5,))),
        Active(-0.837),
    )
