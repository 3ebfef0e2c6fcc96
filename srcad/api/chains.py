"""Derivatives of derivatives: a transform applied to what a transform returned
(`grad(grad(f))`, `jacfwd(grad(f))`, `hessian(grad(f))`, `jvp(grad(f), ...)`) runs srcad's
forward mode over the derivative code srcad generated, as many times as there are outer
transforms.

A `Chain` is one such derivative of a user's function f: its base (f's value, or the
gradient of f with respect to one argument, by srcad's reverse code) and, innermost first,
the argument each outer Jacobian is taken with respect to. It is evaluated on flat
generated functions (`_Levels`): level 0 is

    def f_into(arg0, ..., out):      # a float argument boxed, read as arg0[0]
        out[...] = f(arg0[0], ...)

or srcad's reverse code of it (seed 1 on out, the gradient left in arg_bar), and level k is
srcad's forward code of level k - 1, so every array of level k - 1 comes with its tangent.
A slot of level k is (what it is at level 0, the set of directions it is a derivative
along): the mixed derivative along directions 1..k of the base's output is the slot
(output, {1, ..., k}). Each direction is one unit vector of the argument its transform
differentiates (a loop over them builds the Jacobian), or a tangent the user gave (`jvp`).

The generated code a level returns is dropped (`_returnless`: each level returns a tuple
srcad would refuse to differentiate again); everything is read from its arrays. So every
derivative is srcad's own generated code, readable with `chain_source`, and the
numbers are those of forward-over-reverse products (checked against JAX in
tests/api/test_composed_transforms.py).
"""

from __future__ import annotations

import ast
import itertools
import logging
from dataclasses import dataclass

import numpy as np

from srcad.analysis.types import FLOAT, type_of_value
from srcad.analysis.value_types import argument_type
from srcad.api.auxiliary import ValueOnly
from srcad.api.chain_builds import _built, _own_request
from srcad.api.flat_calls import flat_call, is_float, rebuilt, scalar_positions
from srcad.build.differentiate import _compiled
from srcad.build.pipeline import ArgSpec, Request
from srcad.errors import ArgumentError, SrcadError
from srcad.frontend import pytrees
from srcad.frontend.lambdas import function_name
from srcad.frontend.source_functions import compile_source

_MEMO_SIZE = 32  # levels remembered per (function, base, argument signature)
_LOG = logging.getLogger("srcad")
_LEVELS: dict = {}

OUT, SEED = ("out",), ("seed",)


@dataclass(frozen=True)
class Chain:
    """A derivative of `fun`: `base` is "value" (fun itself) or an argument position (the
    gradient with respect to it, reverse mode); `ops` the argument positions of the outer
    Jacobians, innermost first."""

    fun: object
    base: object
    ops: tuple = ()
    scalar_ops: tuple = ()  # the ops of a grad: the derivative below them is a float

    def then(self, argnum: int, scalar: bool = False) -> Chain:
        return Chain(self.fun, self.base, self.ops + (argnum,),
                     self.scalar_ops + ((len(self.ops),) if scalar else ()))


def differentiable_positions(args) -> tuple:
    return tuple(i for i, a in enumerate(args) if is_float(a))


def _boxed(value):
    return np.array([float(value)]) if not isinstance(value, np.ndarray) else value


class _Levels:
    """The flat generated functions of one (function, base) at one argument signature.

    `args` are flat: a container argument (a dict, list, tuple or record of parameters)
    stands as its leaves, and `layout` gives (position, structure) of each; level 0 takes
    the containers (srcad's container code, srcad/transform/normalize/containers.py) and
    every generated level takes the leaves, so the slots are the leaves'."""

    def __init__(self, fun, base, args, layout=()):
        self.fun, self.base, self.layout = fun, base, layout
        self.numba = {}  # level -> its numba code
        self.floats = differentiable_positions(args)
        originals = rebuilt([a.copy() if isinstance(a, np.ndarray) else a for a in args],
                            layout)
        value = fun(*originals)
        if not is_float(value):
            raise ArgumentError(f"differentiating a derivative of {function_name(fun, 'f')}: "
                                f"it returns {type(value).__name__}, not a float or a float "
                                "array")
        self.out_shape = np.shape(value)
        if base not in ("value", "vjp") and self.out_shape:
            raise ArgumentError(f"grad of {function_name(fun, 'f')}: it returns an array of "
                                f"shape {self.out_shape}; grad needs a float output")
        into = _into(fun, len(originals), scalar_positions(originals),
                     bool(self.out_shape))
        # a container's float leaves are boxed as the flat slots are (read as leaf[0])
        self.boxed_layout = tuple((p, pytrees.boxed(tree, [
            is_float(v) and not isinstance(v, np.ndarray)
            for v in pytrees.leaves(originals[p])])) for p, tree in layout)
        slots = [(("arg", i) if i in self.floats else ("const", i), frozenset())
                 for i in range(len(args))] + [(OUT, frozenset())]
        if base == "value":
            self.into = into
            self.functions, self.slots, self.compiled = [flat_call(into, layout)], [slots], []
            return
        self.into = None
        reverse = _built(fun, 1, into, Request("reverse", self._specs(slots, args),
                                               backend="python", memory=0,
                                               shapes_recorded=True,
                                               containers=self.boxed_layout),
                         lambda: _own_request(args, layout))
        reverse_slots = []
        for slot in slots:
            reverse_slots.append(slot)
            if self._duplicated(slot):
                reverse_slots.append((("bar", slot[0]), frozenset()))
        reverse_slots.append((SEED, frozenset()))
        self.compiled = [reverse]
        self.functions = [_returnless(reverse, fun)]
        self.slots = [reverse_slots]

    @staticmethod
    def _duplicated(slot) -> bool:
        return slot[0][0] not in ("const", "seed")

    def _specs(self, slots, args) -> tuple:
        return tuple(ArgSpec("duplicated", type_of_value(self._shaped(s[0], args)))
                     if self._duplicated(s) else
                     ArgSpec("const", FLOAT if s[0] == SEED else argument_type(args[s[0][1]]))
                     for s in slots)

    def _shaped(self, key, args):
        """A zero array shaped as the slot's arrays (its type is all a spec needs)."""
        while key[0] == "bar":
            key = key[1]
        if key == OUT:
            return np.zeros(self.out_shape or (1,))
        return np.zeros(np.shape(_boxed(args[key[1]])))

    def level(self, k: int, args):
        """(function, slots) of level k: forward code over level k - 1."""
        while len(self.functions) <= k:
            below = len(self.functions) - 1
            slots = self.slots[below]
            function, containers = self._compiled_from(below)
            own = (lambda: _own_request(args, self.layout, "forward")) if below == 0 else None
            compiled = _built(self.fun, below + 1 + (self.base != "value"), function,
                              Request("forward", self._specs(slots, args), backend="python",
                                      containers=containers), own, self.base == "value")
            new_slots = []
            for slot in slots:
                new_slots.append(slot)
                if self._duplicated(slot):
                    new_slots.append((slot[0], slot[1] | {below + 1}))
            self.compiled.append(compiled)
            self.functions.append(_returnless(compiled, self.fun))
            self.slots.append(new_slots)
        return self.functions[k], self.slots[k]

    def numba_level(self, k: int, args):
        """Level k compiled by numba (k >= 1): srcad's numba forward code over the python
        code of level k - 1; where numba refuses that code (whole-array derivative code
        numba does not compile yet), the python code of level k."""
        python = self.level(k, args)
        compiled = self.numba.get(k)
        if compiled is None:
            function, containers = self._compiled_from(k - 1)
            try:
                compiled = _compiled(function, Request(
                    "forward", self._specs(self.slots[k - 1], args), backend="numba",
                    containers=containers))
            except SrcadError:
                compiled = self._python_runs(k)
            self.numba[k] = compiled
            if compiled:
                self.compiled.append(compiled)
        return (compiled.function, self.slots[k]) if compiled else python

    def _compiled_from(self, below: int):
        """(the function level below + 1 is srcad's forward code of, its containers): level
        0 of a value takes the containers, every generated level their leaves."""
        if below == 0 and self.into is not None:
            return self.into, self.boxed_layout
        return self.functions[below], ()

    def numba_refused(self, k: int, args):
        """Level k's python code, once numba has refused to compile its numba code at the
        first call (a construct of srcad's python code of level k - 1 that numba does not
        type, `reversed(range(n)[:trips])`); the slots are the same."""
        self.numba[k] = self._python_runs(k)
        return self.level(k, args)[0]

    def _python_runs(self, k: int) -> bool:
        _LOG.info("srcad: the numba backend does not compile level %d of the composed "
                  "derivative of %s; its python code runs", k, function_name(self.fun, "f"))
        return False

    def is_current(self) -> bool:
        return all(c.is_current() for c in self.compiled)

    def sources(self) -> list:
        return [c.source for c in self.compiled]


def _levels(fun, base, args, layout=()) -> _Levels:
    key = (fun, base, _signature(args), layout)
    levels = _LEVELS.get(key)
    if levels is None or not levels.is_current():
        if len(_LEVELS) >= _MEMO_SIZE:
            _LEVELS.clear()
        levels = _LEVELS[key] = _Levels(fun, base, args, layout)
    return levels


def _signature(args) -> tuple:
    return tuple((a.shape, a.dtype.str) if isinstance(a, np.ndarray)
                 else (type(a), a if isinstance(a, (int, np.integer, str)) else None)
                 for a in args)


def evaluate(chain: Chain, args, direction=None, backend="python", layout=()):
    """The chain's derivative at `args` (shape: the base's output, then each op's argument,
    innermost first); with `direction` (one tangent per argument) its directional
    derivative along it, the shape of the chain's own result. With a `layout`, `args` are
    flat (containers as their leaves, srcad/api/chain_trees.py) and so are the chain's
    positions."""
    args = tuple(args)
    if not layout:  # argnums counted from the end (-1) as positions
        count = len(args)
        chain = Chain(chain.fun, chain.base if chain.base == "value" else chain.base % count,
                      tuple(i % count for i in chain.ops), chain.scalar_ops)
    for i in chain.ops + ((chain.base,) if chain.base != "value" else ()):
        if not is_float(args[i]):
            raise ArgumentError(f"argument {i} is {type(args[i]).__name__}, not a float or a "
                                "float array: derivatives need floats")
    chain, fun, levels = _resolved(chain, args, layout)
    base_shape = levels.out_shape if chain.base == "value" else np.shape(args[chain.base])
    for k in chain.scalar_ops:
        below = tuple(base_shape) + sum((np.shape(args[i]) for i in chain.ops[:k]), ())
        if below:
            raise ArgumentError(f"grad of a derivative of {function_name(fun, 'f')} of shape "
                                f"{below}: grad needs a float output, as in JAX",
                                hint="use jacfwd or jacrev for an array output")
    depth = len(chain.ops) + (direction is not None)
    function, slots = levels.numba_level(depth, args) if backend == "numba" and depth \
        else levels.level(depth, args)
    full = frozenset(range(1, depth + 1))
    output = (OUT, full) if chain.base == "value" else (("bar", ("arg", chain.base)), full)
    where = slots.index(output)
    sizes = [int(np.size(args[i])) for i in chain.ops]
    result = np.zeros((int(np.prod(base_shape, dtype=int)),) + tuple(sizes))
    given = None if direction is None else {
        i: _boxed(np.asarray(direction[i], dtype=float)).reshape(np.shape(_boxed(args[i])))
        for i in levels.floats}
    for index in itertools.product(*(range(n) for n in sizes)):
        directions = {}
        for j, (i, e) in enumerate(zip(chain.ops, index), start=1):
            unit = np.zeros(np.size(args[i]))
            unit[e] = 1.0
            directions[j] = {i: unit.reshape(np.shape(_boxed(args[i])))}
        if given is not None:
            directions[depth] = given
        values = [_slot_value(slot, args, directions, levels.out_shape) for slot in slots]
        try:
            function(*values)
        except Exception as err:  # numba compiles a level at its first call
            if backend != "numba" or not _numba_refused(err) or not levels.numba.get(depth):
                raise
            function = levels.numba_refused(depth, args)
            values = [_slot_value(slot, args, directions, levels.out_shape) for slot in slots]
            function(*values)
        result[(slice(None),) + index] = np.reshape(values[where], -1)
    shape = tuple(base_shape) + sum((np.shape(args[i]) for i in chain.ops), ())
    return float(result.reshape(-1)[0]) if shape == () else result.reshape(shape)


def _numba_refused(err) -> bool:
    """Is `err` numba refusing to compile (a typing or lowering error)?"""
    return type(err).__module__.startswith("numba.") and "Error" in type(err).__name__


def _slot_value(slot, args, directions, out_shape):
    key, mask = slot
    if key == SEED:
        return 1.0
    if key[0] == "const":
        return args[key[1]]
    if key[0] == "arg":
        i = key[1]
        if not mask:
            return _boxed(args[i]).copy()
        if len(mask) == 1:
            (j,) = mask
            d = directions.get(j, {}).get(i)
            if d is not None:
                return np.array(d, dtype=float)
        return np.zeros(np.shape(_boxed(args[i])))
    if key == ("bar", OUT) and not mask:
        return np.ones(1)  # the seed of the float output
    while key[0] == "bar":
        key = key[1]
    return np.zeros(out_shape or (1,) if key == OUT else np.shape(_boxed(args[key[1]])))


def _into(fun, count, floats, array_output):
    """`def fun_into(arg0, ..., out): out[...] = fun(arg0[0], ...)` (floats boxed)."""
    called = function_name(fun, "fun")
    name = f"{called}_into"
    params = [f"arg{i}" for i in range(count)]
    call = ", ".join(f"{p}[0]" if i in floats else p for i, p in enumerate(params))
    target = "out[:]" if array_output else "out[0]"
    source = (f"def {name}({', '.join(params + ['out'])}):\n"
              f"    {target} = {called}({call})\n")
    return compile_source(source, name, {called: fun})


def _returnless(compiled, fun):
    """The generated function without its final return (and the tuple it builds): levels
    are read from their arrays, and srcad refuses to differentiate a tuple result again."""
    if getattr(compiled.function, "__name__", None) != compiled.name:
        code = getattr(fun, "__code__", None)
        raise SrcadError("composing transforms over a function whose body runs inside a `with` "
                         "context is not supported", construct="composed transforms",
                         filename=code.co_filename if code else None,
                         line=code.co_firstlineno if code else None,
                         hint="differentiate the function once, or move the `with` out of it")
    module = ast.parse(compiled.source)
    function = next(n for n in module.body
                    if isinstance(n, ast.FunctionDef) and n.name == compiled.name)
    body = function.body
    if body and isinstance(body[-1], ast.Return):
        returned = {n.id for n in ast.walk(body[-1]) if isinstance(n, ast.Name)}
        body = body[:-1]
        body = [s for s in body if not (
            isinstance(s, ast.Assign) and isinstance(s.value, ast.Tuple)
            and all(isinstance(t, ast.Name) and t.id in returned for t in s.targets))]
        function.body = body or [ast.Pass()]
    return compile_source(ast.unparse(module) + "\n", compiled.name,
                          dict(compiled.function.__globals__))


def _resolved(chain: Chain, args, layout=()):
    """(the chain as it runs, the function it differentiates, its levels at `args`)."""
    count = len(args) - sum(len(pytrees.paths(tree)) - 1 for _, tree in layout)
    fun = chain.fun.function(count) if isinstance(chain.fun, ValueOnly) else chain.fun
    levels = _levels(fun, _level_base(chain.base), args, layout)
    if chain.base == "value" and chain.ops and not levels.out_shape:
        # the first Jacobian of a float f is its gradient: srcad's reverse code
        chain = Chain(chain.fun, chain.ops[0], chain.ops[1:],
                      tuple(k - 1 for k in chain.scalar_ops if k))
        levels = _levels(fun, _level_base(chain.base), args, layout)
    return chain, fun, levels


def _level_base(base):
    """One set of levels serves the gradient with respect to every argument (its reverse
    code leaves them all)."""
    return base if base in ("value", "vjp") else "gradient"


def chain_source(chain: Chain, args, backend="python", layout=()) -> str:
    """The generated code of every level a chain runs at `args`, outermost last."""
    args = tuple(args)
    chain, _, levels = _resolved(chain, args, layout)
    depth = len(chain.ops)
    if backend == "numba" and depth:
        levels.numba_level(depth, args)
    else:
        levels.level(depth, args)
    return "\n\n".join(levels.sources())
