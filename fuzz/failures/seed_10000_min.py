"""srcad fuzz failure: seed 10000 (minimized); crashed

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
  File "<srcad f_reverse #91>", line 37
    neg = -(t6 if t6 < 0.0 else t6)
IndentationError: expected an indented block after 'if' statement on line 34

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import math
import numpy as np
from srcad import Active, Duplicated

def f(y, x, a):
    t6 = a * math.fabs(x[-4])
    y[-3] -= math.sin(-(t6 if t6 < 0.0 else t6))
    while True:
        if not y[-2] <= -1.0:
            break
        a -= math.log(1.0 + 0.1 * k10 * (0.1 * k10))


def args():
    return (Duplicated(np.array([0.05, -0.229, 0.223, -0.852]), np.zeros((4,))), Duplicated(np.array([-0.99, 0.859, -0.279, -0.205, 0.78]), np.zeros((5,))), Active(-0.837))
