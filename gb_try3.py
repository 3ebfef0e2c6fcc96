import numpy as np, srcad, time, linecache, gast
from srcad.api import _compiled
from srcad.pipeline import ArgSpec, Request
from srcad.analysis.types import type_of_value, FLOAT
from srcad.compiler import compile_source
from srcad.codegen import to_source
from benchmarks.gradbench.kmeans import cost_loops, generate, Problem
p = Problem(generate(100,1000,8))
C, P = p.centroids, p.points
tC = type_of_value(C)
fw = _compiled(cost_loops, Request("forward", (ArgSpec("duplicated", tC), ArgSpec("const", tC)), backend="python"))
tree = gast.parse(str(fw.source))
fn = tree.body[0]
last = fn.body[-1]
fn.body[-1] = gast.Return(value=last.value.elts[1].elts[0])
fn.name = fn.name + "_tangent"
src = to_source(tree)
f2 = compile_source(src, fn.name, fw.function.__globals__)
t0=time.time()
rv = _compiled(f2, Request("reverse", (ArgSpec("duplicated", tC), ArgSpec("const", tC), ArgSpec("const", tC)), backend="numba"))
print(time.time()-t0)
print(rv.source[-2500:]); print(rv.tapes, rv.tuple_return)
from srcad.running import tape_buffers, call_generated, kept_tapes
flat = [C, np.zeros_like(C), np.ones_like(C), P, 1.0] + tape_buffers(rv)
r = call_generated(rv.function, flat)
print(r[0], flat[1][:3])
from benchmarks.gradbench.kmeans import reference_dir
t0=time.time()
for _ in range(10):
    flat[1].fill(0); r = call_generated(rv.function, flat)
    if rv.tapes: flat[-len(rv.tapes):] = kept_tapes(flat[-len(rv.tapes):], r[2:])
print((time.time()-t0)/10)
