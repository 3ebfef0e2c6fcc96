import numpy as np, srcad, time
from benchmarks.gradbench.kmeans import cost_loops, cost_vectorized, generate, Problem, reference_dir
p = Problem(generate(100,1000,8))
C, P = p.centroids, p.points
ones = np.ones_like(C)
for f in (cost_loops, cost_vectorized):
    for be in ("numba","python"):
        try:
            t0=time.time()
            prep = srcad.prepare_hvp(f, C, srcad.Constant(P), tangent=ones, backend=be)
            h = srcad.hvp(f, C, srcad.Constant(P), tangent=ones, prep=prep)
            print(f.__name__, be, time.time()-t0, prep.mode)
            t0=time.time()
            for _ in range(5): h = srcad.hvp(f, C, srcad.Constant(P), tangent=ones, prep=prep)
            print("  per call", (time.time()-t0)/5)
            g = srcad.gradient(f, C, srcad.Constant(P), backend=be)
            print("  err", np.abs(C - g/h - reference_dir(p)).max() if False else np.abs(g/h - (C-0) + 0 - (g/h)).max(), np.abs(g/h - reference_dir(p)).max())
        except srcad.SrcadError as e:
            print(f.__name__, be, "ERR", e)
