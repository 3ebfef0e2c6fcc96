import numpy as np, srcad, time, linecache
from srcad.api import _compiled
from srcad.pipeline import ArgSpec, Request
from srcad.analysis.types import type_of_value, FLOAT
from benchmarks.gradbench.kmeans import cost_loops, generate, Problem
p = Problem(generate(100,1000,8))
C, P = p.centroids, p.points
tC = type_of_value(C)
fw = _compiled(cost_loops, Request("forward", (ArgSpec("duplicated", tC), ArgSpec("const", tC)), backend="python"))
src = "def tangent_of(c, c_dot, P):\n    value, (tangent,) = fwd(c, c_dot, P)\n    return tangent\n"
fn = "<srcad wrapper tangent_of>"
linecache.cache[fn] = (len(src), None, src.splitlines(True), fn)
ns = {"fwd": fw.function}
exec(compile(src, fn, "exec"), ns)
t0=time.time()
rv = _compiled(ns["tangent_of"], Request("reverse", (ArgSpec("duplicated", tC), ArgSpec("const", tC), ArgSpec("const", tC)), backend="numba"))
print(time.time()-t0)
print(rv.source[-3000:]); print(rv.tapes, rv.tuple_return)
from srcad.running import tape_buffers, call_generated
flat = [C, np.zeros_like(C), np.ones_like(C), P, 1.0] + tape_buffers(rv)
r = call_generated(rv.function, flat)
print(r[0], flat[1][:3])
t0=time.time()
for _ in range(10):
    flat[1].fill(0); r = call_generated(rv.function, flat); flat[-len(rv.tapes):] = r[2:] if rv.tapes else flat[-1:]
print((time.time()-t0)/10)
