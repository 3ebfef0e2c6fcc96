"""A call numba cannot compile, on constants, in a numba kernel: computed before the kernel
and passed in (what srcad/build/numba_constants.py does) against numba's object mode, where the call
stands (in the loop) and once before the loop. Run: python benchmarks/numba_constant_calls.py

Measured (2-core machine shared with other jobs, best of 7 x 500 calls):
    n = 10:   object mode in the loop 4.86 us, object mode once 0.70 us, passed in 0.36 us
    n = 1000: object mode in the loop 1794 us, object mode once 1.18 us, passed in 0.82 us
"""
import time

import numba
import numpy as np
import scipy.special


@numba.njit
def objmode_in_loop(x, a):
    s = 0.0
    for i in range(x.shape[0]):
        with numba.objmode(g="float64"):
            g = scipy.special.gammaln(a)
        s += g * x[i]
    return s

@numba.njit
def objmode_once(x, a):
    with numba.objmode(g="float64"):
        g = scipy.special.gammaln(a)
    s = 0.0
    for i in range(x.shape[0]):
        s += g * x[i]
    return s

@numba.njit
def kernel(g, x, a):
    s = 0.0
    for i in range(x.shape[0]):
        s += g * x[i]
    return s

def hoisted(x, a):
    return kernel(scipy.special.gammaln(a), x, a)

for n in (10, 1000):
    x = np.random.rand(n)
    for fn in (objmode_in_loop, objmode_once, hoisted):
        fn(x, 2.5)
        reps, best = 500, float("inf")
        for _ in range(7):
            t = time.perf_counter()
            for _ in range(reps):
                fn(x, 2.5)
            best = min(best, (time.perf_counter() - t) / reps)
        print(n, fn.__name__, f"{best * 1e6:.2f} us/call (best of 7)")
