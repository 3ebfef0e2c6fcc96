"""Derivative rules users add, in JAX's form: `custom_jvp` and `custom_vjp`.

    @srcad.custom_jvp
    def softplus(x):
        return np.log1p(np.exp(x))

    @softplus.defjvp
    def softplus_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t * scipy.special.expit(x)

Defining a rule adds an entry to srcad's rule table (srcad/rules/custom.py), keyed by the
wrapped object and by the function it wraps: `srcad.custom_jvp(scipy.special.i0).defjvp(rule)`
gives every call of `scipy.special.i0` srcad differentiates that rule. Generated code calls
the rule functions themselves, by name (`srcad_rule_softplus_jvp`). A custom_jvp serves
reverse mode by transposing the tangent map of its jvp rule (linear in the tangents) with
srcad's own reverse mode, as JAX linearizes and transposes (of floats: the tangent of a unit
seed times the adjoint); a custom_vjp serves reverse mode only (JAX refuses its forward mode
too). The rule functions run as the Python they are; on the numba backend numba compiles them
(srcad/runtime/numba_functions.py), when they are plain Python functions that numba compiles.
The reverse mode of a custom_jvp function of arrays transposes in Python: the numba backend
refuses it by name.

A custom function's result has its arguments' broadcast shape: a float of floats, an array of
arrays (a rule for a reduction or a reshaping function is not supported yet). Second order
through a custom_jvp differentiates its rule (reverse mode over the forward code, which calls
the rule's tangent maps); through a custom_vjp it is refused, as in JAX.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import linecache
import sys
import types

import numpy as np

from srcad.annotations import Constant
from srcad.build import cache
from srcad.errors import SecondOrderRefusal, SrcadError
from srcad.operators.directional_operators import pullback
from srcad.rules.custom import bind, jvp_rule, shaped, vjp_rule
from srcad.rules.table import ELEMENTWISE, CallInfo, register_user
from srcad.runtime.runtime_names import NUMBA_SPECIAL_FUNCTIONS

_counter = itertools.count(1)
_NOT_PYTHON = ("numba compiles the functions of a derivative rule (srcad.{kind}) when they are "
               "plain Python functions; `{name}` is not")
_TRANSPOSED_ON_NUMBA = ("the reverse mode of `{name}` (srcad.custom_jvp) of arrays transposes its "
                        "jvp rule in Python, which the numba backend does not compile")


def _synthesized(name: str, text: str, namespace: dict):
    """The function `name` defined by `text`, whose source srcad can read (linecache)."""
    filename = f"<srcad rule {name} {next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


def calling(fun, arity: int):
    """A plain Python function of `arity` arguments returning `fun` of them, whose source
    srcad reads: how srcad differentiates a function it has a rule for as a whole.

    >>> import math
    >>> calling(math.exp, 1)(0.0)
    1.0
    """
    name = getattr(fun, "__name__", "function").strip("<>")
    xs = ", ".join(_parameter_names(fun, arity, avoid=name))
    return _synthesized(f"{name}_with_rule",
                        f"def {name}_with_rule({xs}):\n    return {name}({xs})\n", {name: fun})


def _parameter_names(fun, arity: int, avoid: str) -> list:
    """fun's own names for its first `arity` parameters (the generated code's names then
    read as the user's: `x_dot`), else x0, x1, ..."""
    try:
        names = [p.name for p in inspect.signature(fun).parameters.values()][:arity]
    except (TypeError, ValueError):
        names = []
    if len(names) != arity or avoid in names or not all(n.isidentifier() for n in names):
        return [f"x{k}" for k in range(arity)]
    return names


def arity(fun) -> int:
    if isinstance(fun, np.ufunc):
        return fun.nin
    try:
        parameters = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: one argument
        return 1
    return sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


class _Custom:
    kind = ""

    def __init__(self, fun):
        self.fun = fun
        functools.update_wrapper(self, fun, updated=())
        del self.__wrapped__  # srcad differentiates the rule, never fun's own code
        self.arity = arity(fun)

    def __call__(self, *args):
        return self.fun(*args)

    @property
    def _numba_type_(self):  # noqa: N802  (numba's typing protocol)
        """How numba types a call of this function inside compiled code (a rule function
        calling its custom function): as `numba.njit` of the wrapped function."""
        return _numba_dispatcher(self.srcad_numba_function)

    @property
    def srcad_numba_function(self):
        """The Python function numba compiles for a call of this object: the wrapped
        function, or a plain function calling it (`scipy.special.i0`, which numba compiles
        through srcad/runtime/numba_special.py)."""
        return self.fun if isinstance(self.fun, types.FunctionType) else self.__srcad_wrapped__

    @functools.cached_property
    def __srcad_wrapped__(self):  # noqa: N807  (srcad's unwrapping protocol)
        """A plain function of the same arguments calling the wrapped one (which has this
        rule in the table): what srcad differentiates or inlines for this object, so that
        `srcad.grad(softplus)` and a call `softplus(x)` in differentiated code use the rule."""
        return calling(self.fun, self.arity)

    def _register(self, rule, array_rule=None, functions=()) -> None:
        array_rule = array_rule or rule
        info = CallInfo(self.__name__, rule, "float", arrays=ELEMENTWISE,
                        select=lambda ranks, keywords: shaped(
                            array_rule if any(ranks) else rule, ranks),
                        numba_refusal=self._numba_refusal((self.fun, *functions)),
                        forward_refusal=self._forward_refusal())
        register_user(self, info)
        register_user(self.fun, info)  # srcad.custom_jvp(scipy.special.i0): every call of i0
        cache.clear()  # code built before used the old rule (or none)

    def _forward_refusal(self) -> str:
        return ""

    def _numba_refusal(self, functions) -> str:
        """Why the numba backend cannot run this rule ("": it can)."""
        for fun in functions:
            if not isinstance(fun, types.FunctionType) and not _special_on_numba(fun):
                name = getattr(fun, "__name__", type(fun).__name__)
                return _NOT_PYTHON.format(kind=self.kind, name=name)
        return ""

    def _no_second_order(self, ranks, keywords):
        """The select of the transposed rule, met only when srcad differentiates its own
        reverse-mode code again (hessian, hvp)."""
        raise SecondOrderRefusal(
            f"second derivatives through the reverse mode of `{self.__name__}` "
            f"(srcad.{self.kind}) are not supported yet", construct=self.kind,
            hint="for second derivatives, differentiate a plain function without "
            "the custom rule")


class custom_jvp(_Custom):  # noqa: N801  (JAX's name)
    """A function with a forward-mode rule `jvp(primals, tangents) -> (out, tangent_out)`.

    >>> import srcad
    >>> @srcad.custom_jvp
    ... def cube(x):
    ...     return x ** 3
    >>> @cube.defjvp
    ... def cube_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return cube(x), 3.0 * x * x * t
    >>> cube(2.0)
    8.0
    """

    kind = "custom_jvp"

    def defjvp(self, jvp):
        """Set the rule; returns it (usable as a decorator)."""
        self.jvp = jvp
        transposed_map = _Transposed(jvp, getattr(jvp, "__name__", "jvp"))
        transposed_map.srcad_numba_refusal = _TRANSPOSED_ON_NUMBA.format(name=self.__name__)
        # forward mode calls the tangent maps, plain Python srcad reads: reverse mode over
        # forward code (second order) differentiates the rule itself, as JAX does
        tangent_maps = [bind(transposed_map.tangent_map(self.arity, k), f"_{k}")
                        for k in range(self.arity)]
        transposed = bind(transposed_map, "_transposed")
        slope = _Slope(jvp, getattr(jvp, "__name__", "jvp"))
        for called in (transposed_map, slope):  # met again only by hessian and hvp
            register_user(called, CallInfo(called.__name__, None, "float",
                                      select=self._no_second_order))
        self._register(*jvp_rule(self.__name__, self.arity, tangent_maps, transposed,
                                 bind(slope, "_slope")), (jvp,))
        return jvp


class custom_vjp(_Custom):  # noqa: N801  (JAX's name)
    """A function with a reverse-mode rule: `fwd(*args) -> (out, residuals)` and
    `bwd(residuals, g) -> one cotangent per argument`. Reverse mode runs `fwd` again for the
    residuals where it needs them.

    >>> import math, srcad
    >>> @srcad.custom_vjp
    ... def softplus(x):
    ...     return math.log1p(math.exp(x))
    >>> def softplus_fwd(x):
    ...     return softplus(x), x
    >>> def softplus_bwd(x, g):
    ...     return (g / (1.0 + math.exp(-x)),)
    >>> softplus.defvjp(softplus_fwd, softplus_bwd)
    >>> def loss(x):
    ...     return 2.0 * softplus(x)
    >>> srcad.grad(loss)(0.0)
    1.0
    """

    kind = "custom_vjp"

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        name = self.__name__

        def no_forward(g):
            raise SrcadError(self._forward_refusal(), construct="custom_vjp")

        no_forward.__name__ = f"{name}_no_forward"
        self._register(vjp_rule(name, self.arity, bind(fwd), bind(bwd), bind(no_forward)),
                       functions=(fwd, bwd))

    def _forward_refusal(self) -> str:
        return (f"`{self.__name__}` has a reverse-mode rule only (srcad.custom_vjp), and "
                "forward mode cannot use it (JAX refuses it too); give it a forward rule "
                "with srcad.custom_jvp")


def _special_on_numba(fun) -> bool:
    """Is `fun` a scipy.special function srcad gives numba (srcad/runtime/numba_special.py)?"""
    name = getattr(fun, "__name__", "")
    special = sys.modules.get("scipy.special")  # imported by whoever holds one of its functions
    return name in NUMBA_SPECIAL_FUNCTIONS and getattr(special, name, None) is fun


def _numba_dispatcher(fun):
    """numba's type of a call of `fun` inside compiled code: `numba.njit(fun)`. numba is
    imported here, when it asks: srcad does not need numba otherwise."""
    from numba.core import types as numba_types

    from srcad.runtime.numba_functions import compiled  # numba: imported only here
    return numba_types.Dispatcher(compiled(fun))


class _RuleFunction:
    """The jvp rule as a tangent map calls it: to srcad the rule itself (read, inlined and
    differentiated again for second order), to numba the rule compiled."""

    def __init__(self, jvp):
        self.jvp, self.__name__ = jvp, getattr(jvp, "__name__", "jvp")

    def __call__(self, primals, tangents):
        return self.jvp(primals, tangents)

    @property
    def __srcad_wrapped__(self):  # noqa: N807  (srcad's unwrapping protocol)
        return self.jvp

    @property
    def _numba_type_(self):  # noqa: N802  (numba's typing protocol)
        return _numba_dispatcher(self.jvp)


class _Slope:
    """The jvp rule, called for the reverse-mode slope of a custom_jvp function of floats:
    an object of its own, so that hessian and hvp, which differentiate that reverse code
    again, meet it and refuse by name. numba compiles the rule itself."""

    def __init__(self, jvp, name):
        self.jvp, self.__name__, self.srcad_numba_function = jvp, name, jvp

    def __call__(self, primals, tangents):
        return self.jvp(primals, tangents)


class _Transposed:
    """The adjoint of argument k of a custom_jvp function: the jvp rule's tangent map at the
    primals (linear in the tangents), transposed by srcad's reverse mode and applied to g."""

    def __init__(self, jvp, name):
        self.jvp, self.__name__, self.maps = jvp, name, {}

    def tangent_map(self, arity: int, k: int):
        """`(t, x0, x1, ...) -> ` the jvp rule's tangent with t the tangent of argument k,
        the others zero: a plain function whose source srcad reads."""
        key = (arity, k)
        if key not in self.maps:
            xs = [f"x{j}" for j in range(arity)]
            seeds = ["t" if j == k else f"0.0 * {x}" for j, x in enumerate(xs)]
            text = (f"def {self.__name__}_tangent_map(t, {', '.join(xs)}):\n"
                    f"    _, tangent = rule(({', '.join(xs)},), ({', '.join(seeds)},))\n"
                    "    return tangent\n")
            self.maps[key] = _synthesized(f"{self.__name__}_tangent_map", text,
                                          {"rule": _RuleFunction(self.jvp)})
        return self.maps[key]

    def __call__(self, primals, g, k):
        key = (len(primals), k)
        self.tangent_map(*key)
        x = primals[k]
        t = np.zeros(np.shape(x)) if np.ndim(x) else 0.0
        contexts = [Constant(p) for p in primals]
        return pullback(self.maps[key], t, *contexts, cotangent=g)
