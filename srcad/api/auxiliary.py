"""`has_aux=True` for the function transforms: `fun` returns `(value, aux)`, and only the value
is differentiated.

srcad differentiates source code, so the value alone is a plain function with real source,
`def fun_value(arg0, ...): value, aux = fun(arg0, ...); return value`, which srcad
differentiates by inlining `fun` (one per argument count, compiled in memory like srcad's
other wrappers). The auxiliary data comes from one more plain call of `fun`: it is whatever
`fun` returns second, never differentiated.
"""

from __future__ import annotations

from srcad.build.compiler import compile_source
from srcad.errors import ArgumentError
from srcad.frontend.lambdas import function_name


class ValueOnly:
    """The value-only functions of a `fun` returning `(value, aux)`, and its aux."""

    def __init__(self, fun, transform):
        self.fun = fun
        self.transform = transform
        self.functions = {}  # argument count -> the value-only function

    def function(self, count: int):
        """A plain function of `count` arguments returning fun's value alone."""
        function = self.functions.get(count)
        if function is None:
            params = ", ".join(f"arg{i}" for i in range(count))
            name = f"{function_name(self.fun, 'fun')}_value"
            source = (f"def {name}({params}):\n"
                      f"    value, aux = fun_with_aux({params})\n"
                      f"    return value\n")
            function = self.functions[count] = compile_source(
                source, name, {"fun_with_aux": self.fun})
        return function

    def aux(self, args):
        """The auxiliary data of fun at `args` (one plain call)."""
        result = self.fun(*args)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise ArgumentError(f"{self.transform} with has_aux=True needs a function returning "
                                f"a pair (value, aux), got {type(result).__name__}")
        return result[1]
