"""`wraps(fun)`: `functools.wraps` for the functions transforms return, without the marks
srcad's transforms set on `fun` (`__srcad_gradient__`, `__srcad_compose__`,
`__srcad_wrapped__`, ...).

functools.wraps copies `fun.__dict__`, so `vmap(grad(f))` would carry grad's mark and be
taken for `grad(f)` itself by the next transform (a per-example gradient differentiated as
one example's, a plausible wrong answer). What a transform returns carries only the marks the
transform sets itself.

>>> import functools
>>> def f(x):
...     return x
>>> f.__srcad_gradient__ = "f's"
>>> @wraps(f)
... def g(x):
...     return f(x)
>>> hasattr(g, "__srcad_gradient__"), g.__name__
(False, 'f')
"""

from __future__ import annotations

import functools


def wraps(fun):
    """functools.wraps(fun), dropping srcad's marks copied from fun."""
    def decorator(function):
        function = functools.wraps(fun)(function)
        for name in [n for n in vars(function) if n.startswith("__srcad_")]:
            delattr(function, name)
        return function
    return decorator
