"""Recursive helpers at run time: a call of the user's recursive function, kept by the
inliner as `srcad_recursive_call(token, a0, ..., an)` (srcad/transform/normalize/
recursive_calls.py), runs the helper itself, and its rule differentiates the helper as its
own function with the arguments of that activation.

The helper's result is a float. Its rule, per operand a_k, needs the gradient grad_k of the
helper at the call's arguments, which srcad's reverse code of the helper gives for every
argument at once (floats boxed as one-element arrays, every float array differentiated):

* adjoint: a_k_bar += g * grad_k (`srcad_recursive_adjoint`);
* tangent: vdot(grad_k, t) (`srcad_recursive_tangent`): a float result's tangent is the
  gradient applied to the tangents, so forward mode runs the helper's reverse code once per
  activation, whatever the number of float arguments.

The helper's reverse code meets its own recursive calls as this primitive again: the reverse
of one activation runs its forward sweep (the children as plain calls), then its adjoint
sweep, which asks each child's gradient (the child's own forward and adjoint sweeps). This is
Tapenade's "joint" reversal of calls: a tape per activation, alive while that activation is
reversed, and each activation recomputed once per ancestor (depth d: the primal work d times).

Second derivatives (hvp, hessian: forward over reverse) differentiate the tangent and adjoint
calls again: their rules ask `srcad_recursive_hvp`, the tangent of the helper's gradient for a
direction on one argument (forward over the helper's reverse code, srcad/operators/nested.py's
`_Code`). Third derivatives are refused. The python backend only: numba code cannot call back
into Python, and the numba backend refuses a recursive helper whose argument carries a
derivative by name.

The reverse sweep asks for every operand of one call in a row, with the same arguments: the
last gradient (and the last hvp) is kept per thread, with copies of the arguments it was
computed at and the frame of the generated code that asked, and reused by that frame while
they are equal.
"""

from __future__ import annotations

import functools
import itertools
import linecache
import sys
import threading

import gast
import numpy as np

from srcad.analysis.types import type_of_value
from srcad.build.pipeline import NESTED
from srcad.errors import RunTimeRefusal, SecondOrderRefusal
from srcad.frontend.parse import parse_function
from srcad.operators.nested import _Code, _same
from srcad.operators.nested_numba import NumbaNested
from srcad.operators.numba_kernels import NumbaKernels
from srcad.operators.recursion_numba import NumbaRecursion
from srcad.rules import linear
from srcad.rules.custom import RULE_FUNCTIONS
from srcad.rules.table import CallInfo, register
from srcad.runtime.runtime_names import RECURSION_RUNTIME_NAMES
from srcad.transform.normalize.recursive_calls import PRIMITIVE

_REGISTRY: dict = {}
_TOKENS: dict = {}
_LOCK = threading.Lock()
_LAST = threading.local()
_counter = itertools.count(1)
_FRAMES_PER_LEVEL = 12


class RecursiveHelper:
    """One recursive function of the user's: its calls, gradients and second derivatives."""

    def __init__(self, helper):
        self.helper = helper
        self.writes = _writes_parameters(helper)
        self.codes: dict = {}  # by the srcad types of the arguments
        self._opened = None

    @property
    def opened(self):
        """The shim srcad differentiates for this helper (one per helper: compiled code is
        cached by function; code built from it is rebuilt when the helper's code changes,
        the helper being a function it reads)."""
        if self._opened is None:
            self._opened = _opened(self.helper)
        return self._opened

    def call(self, args):
        """The helper's value at `args`, as Python calls it; an array argument it leaves
        changed, or a result that is not a number, is refused (the rule could not follow)."""
        kept = [np.copy(a) if isinstance(a, np.ndarray) else None for a in args] \
            if self.writes else []  # None: nothing to compare
        result = self.helper(*args)
        for position, (before, after) in enumerate(zip(kept, args)):
            if before is not None and not np.array_equal(before, after):
                raise self._refusal(f"leaves its argument `{self._parameter(position)}` "
                                    "changed", "restore what it writes into its array "
                                    "arguments before it returns, or return the values")
        if not isinstance(result, (float, int, np.floating, np.integer)) \
                or isinstance(result, bool):
            raise self._refusal(f"returns a {type(result).__name__}, not a number",
                                "a recursive helper srcad differentiates returns a float")
        return result

    def _parameter(self, position):
        return self.helper.__code__.co_varnames[position]

    def _refusal(self, what, hint):
        name = self.helper.__name__
        code = self.helper.__code__
        return RunTimeRefusal(f"the recursive helper {name} {what}", construct="recursion",
                              hint=hint, filename=code.co_filename, line=code.co_firstlineno)

    def code(self, args) -> _Code:
        key = tuple(type_of_value(a) for a in args)
        code = self.codes.get(key)
        if code is None or not code.reverse.is_current():
            code = self.codes[key] = _Code(self.opened, list(args))
        return code

    def gradients(self, args) -> dict:
        """position -> the gradient of the helper in that argument (its float or float
        array arguments), at `args` (copies: the helper may write into int arrays)."""
        copies = _copies(args)
        return self.code(copies).gradients(copies, self.helper)

    def second(self, args, position, direction) -> dict:
        """position k -> the tangent of grad_k for `direction` on argument `position`."""
        copies = _copies(args)
        return self.code(copies).second(copies, {position: direction})


def _copies(args) -> list:
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]


def _opened(helper):
    """A function of the helper's parameters whose body is the helper's own, which srcad
    differentiates (inlining it once: its recursive calls stay calls of the primitive)."""
    params = ", ".join(helper.__code__.co_varnames[:helper.__code__.co_argcount])
    name = f"{helper.__name__}_activation"
    source = f"def {name}({params}):\n    return {helper.__name__}({params})\n"
    filename = f"<srcad recursive helper {name} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {helper.__name__: helper}
    exec(compile(source, filename, "exec"), namespace)
    opened = namespace[name]
    opened.srcad_recursive_body = helper
    return opened


def _writes_parameters(helper) -> bool:
    """Does the helper's text store into a subscript or attribute of a parameter?"""
    tree = parse_function(helper).tree
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    for node in gast.walk(tree):
        if isinstance(node, (gast.Subscript, gast.Attribute)) \
                and isinstance(node.ctx, gast.Store):
            base = node.value
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name) and base.id in params:
                return True
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            return True  # a method call may write its object (`r.fill(0)`): checked at run time
    return False


def token_for(helper) -> int:
    """The token of a recursive helper (one per function, kept for the process)."""
    with _LOCK:
        token = _TOKENS.get(helper)
        if token is None:
            token = len(_REGISTRY) + 1
            _TOKENS[helper] = token
            _REGISTRY[token] = RecursiveHelper(helper)
        return token


def _kept(name, caller, key, compute):
    """The value `compute()` last gave for `key` (a tuple of values) to the same run of the
    same generated code (`caller`, the frame calling srcad's runtime function: a later call
    of f, whose helpers may read globals changed since, computes again), per thread."""
    last = getattr(_LAST, name, None)
    if last is None or last[0] is not caller or not _same(last[1], key):
        last = (caller, _copies(key), _deeper(compute))
        setattr(_LAST, name, last)
    return last[2]


def _deeper(compute):
    """compute() with room for the frames of a derivative: each level of the recursion
    runs a few of srcad's frames besides the helper's own, so the outermost derivative
    raises Python's recursion limit by _FRAMES_PER_LEVEL while it runs (a recursion the
    plain call can run, the derivative can run)."""
    if getattr(_LAST, "inside", False):
        return compute()
    limit = sys.getrecursionlimit()
    _LAST.inside = True
    sys.setrecursionlimit(limit * _FRAMES_PER_LEVEL)
    try:
        return compute()
    finally:
        sys.setrecursionlimit(limit)
        _LAST.inside = False


def _gradient(token, k, args, caller):
    helper = _REGISTRY[token]
    grads = _kept("gradients", caller, (token, *args), lambda: helper.gradients(args))
    return grads.get(k, 0.0)


def srcad_recursive_call(token, *args):
    """The recursive helper `token` names, called with `args`."""
    return _REGISTRY[token].call(args)


def srcad_recursive_tangent(token, k, *args_and_tangent):
    """The tangent of the helper's result for the tangent t (the last argument) of its
    argument k: vdot(grad_k, t)."""
    *args, tangent = args_and_tangent
    gradient = _gradient(token, k, args, sys._getframe(1))
    return float(np.vdot(gradient, tangent)) if np.ndim(gradient) else gradient * tangent


def srcad_recursive_adjoint(token, k, shaped_like, *args_and_seed):
    """What the adjoint g (the last argument) of the helper's result sends to argument k
    (`shaped_like`: argument k again, which gives the rule the result's shape)."""
    *args, seed = args_and_seed
    return _gradient(token, k, args, sys._getframe(1)) * seed


def srcad_recursive_hvp(token, k, j, *args_and_direction):
    """The tangent of grad_k for the direction d (the last argument) on argument j."""
    *args, direction = args_and_direction
    if not np.any(direction):  # a constant argument: no tangent, no forward-over-reverse
        return np.zeros(np.shape(args[k])) if np.ndim(args[k]) else 0.0
    helper = _REGISTRY[token]
    seconds = _kept("seconds", sys._getframe(1), (token, j, *args_and_direction),
                    lambda: helper.second(args, j, direction))
    value = seconds.get(k, 0.0)
    return np.copy(value) if isinstance(value, np.ndarray) else value


def _listed(count):
    return ", ".join(f"a{k}" for k in range(count))


def call_rule(ranks, keywords):
    """The rule of `srcad_recursive_call(t, a0, ..., an)`: a float."""
    count = len(ranks) - 1
    listed = _listed(count)
    pairs = [(None, None)] + [(f"srcad_recursive_tangent(t, {k}, {listed}, g)",
                               f"srcad_recursive_adjoint(t, {k}, a{k}, {listed}, g)")
                              for k in range(count)]
    return linear("recursive_call", " ".join(["t"] + [f"a{k}" for k in range(count)]),
                  *pairs, shape="()", rank=0)


def _derivative_rule(adjoint: bool):
    """The rule of `srcad_recursive_tangent(t, k, a0, ..., an, w)` (w: the tangent of a_k,
    the result vdot(grad_k, w), a float) or of `srcad_recursive_adjoint(t, k, x, a0, ...,
    an, w)` (x: a_k again, w: the seed, the result w * grad_k, shaped like x); H is the
    helper's Hessian, symmetric."""
    def select(ranks, keywords):
        lead = 3 if adjoint else 2
        count = len(ranks) - lead - 1
        listed = _listed(count)
        hvp = "srcad_recursive_hvp(t, {0}, {1}, " + listed + ", {2})"
        pairs = [(None, None)] * lead
        for j in range(count):
            if adjoint:  # w * H_kj d ; adjoint of seed g: w * H_jk g
                pairs.append((f"w * {hvp.format('k', j, 'g')}",
                              f"w * {hvp.format(j, 'k', 'g')}"))
            else:  # vdot(H_kj d, w) ; adjoint of seed g: g * H_jk w
                pairs.append((f"np.vdot({hvp.format('k', j, 'g')}, w)",
                              f"g * {hvp.format(j, 'k', 'w')}"))
        if adjoint:  # d(w * grad_k)/dw: grad_k; adjoint of seed g: vdot(grad_k, g)
            pairs.append((f"srcad_recursive_adjoint(t, k, x, {listed}, g)",
                          f"srcad_recursive_tangent(t, k, {listed}, g)"))
        else:
            pairs.append((f"srcad_recursive_tangent(t, k, {listed}, g)",
                          f"srcad_recursive_adjoint(t, k, w, {listed}, g)"))
        operands = ["t", "k"] + (["x"] if adjoint else []) + [f"a{j}" for j in range(count)]
        name = "recursive_adjoint" if adjoint else "recursive_tangent"
        if adjoint:
            return linear(name, " ".join(operands + ["w"]), *pairs, shape="x_shape",
                          rank=ranks[2])
        return linear(name, " ".join(operands + ["w"]), *pairs, shape="()", rank=0)
    return select


def _third_order(ranks, keywords):
    raise SecondOrderRefusal("a third derivative through a recursive helper is not "
                             "supported", construct="recursion",
                             hint="differentiate the recursive helper at most twice")


register(srcad_recursive_call, CallInfo("recursive_call", None, "float", select=call_rule))
register(srcad_recursive_tangent, CallInfo("recursive_tangent", None, "float",
                                           select=_derivative_rule(False)))
register(srcad_recursive_adjoint, CallInfo("recursive_adjoint", None, "float",
                                           select=_derivative_rule(True)))
register(srcad_recursive_hvp, CallInfo("recursive_hvp", None, "float", select=_third_order))

RULE_FUNCTIONS.update({f.__name__: f for f in (srcad_recursive_call, srcad_recursive_tangent,
                                               srcad_recursive_adjoint, srcad_recursive_hvp)})
assert tuple(RULE_FUNCTIONS) and set(RECURSION_RUNTIME_NAMES) <= set(RULE_FUNCTIONS)
PRIMITIVE.update(function=srcad_recursive_call, token_for=token_for)
# numba: the kernels of nested gradients and of recursive helpers, in the outer code's module
NESTED["numba"] = functools.partial(NumbaKernels, makers=(NumbaNested, functools.partial(
    NumbaRecursion, helpers_of=_REGISTRY.__getitem__)))
