"""Batched reverse mode: W cotangents pulled back by one reverse sweep (python backend).

The generated reverse code of scalar (element-by-element) code is linear in its adjoints, so
it runs unchanged on adjoints that are NumPy vectors of W lanes, with every adjoint array
holding its lanes last (`x_bar[i]` is then the vector of x[i]'s W adjoints). Three rewrites
of the generated source make that exact:

* an adjoint array allocated by the code (`y_bar = np.zeros_like(y)`) gets a last axis of W;
* `a_bar += t` on a name becomes `a_bar = a_bar + t`: `a_bar` may be bound to another
  adjoint's vector, which an in-place add would change too;
* a name bound to an element of an adjoint array (`y_bar_value = y_bar[i]`, then
  `y_bar[i] = 0.0`) gets a copy, not a view the next write would change; a name bound to a
  row of one (`row_bar = A_bar[i]`, indexed itself afterwards) stays the view it is, the W
  lanes of the row's adjoints, written through in place as in the one-lane code.

Anything else that could treat the lanes as data is refused (`BatchUnsupported`), so callers
fall back to one sweep per cotangent: a NumPy call on adjoints or on values computed from them
(whole-array code: `np.sum(y_bar)` would sum the lanes), a slice of an adjoint array, an adjoint
passed to a call. A call of primal values only (`np.cos(x[i])`) runs as it is, checked to
return a number at run time (srcad/operators/lane_calls.py): whole-array code, whose calls
return arrays, stops at its first such call (`LanesUnsupported`) and is swept per cotangent.
"""

from __future__ import annotations

import ast

import numpy as np

from srcad.annotations import Active, Annotation, BatchDuplicated, Duplicated
from srcad.build import differentiate
from srcad.build.aliasing import refuse_aliased_writes
from srcad.build.arguments import _arguments, _check_shadow
from srcad.build.differentiate import _compiled
from srcad.build.engines import InputCopy, _reverse_code, _spec, refuse_written_constants
from srcad.build.output_restore import OutputRestore
from srcad.build.pipeline import Request
from srcad.build.running import call_generated, kept_tapes, take_buffers, tape_buffers
from srcad.errors import ArgumentError
from srcad.operators.batched_lanes import BatchUnsupported
from srcad.operators.lane_calls import (
    GUARD,
    lane_names,
    located,
    primal_calls,
    scalar_result,
    wrap_primal_calls,
)
from srcad.operators.lane_functions import numba_lanes_function
from srcad.operators.preparation import make_prep

_ALLOCATIONS = {"zeros", "zeros_like", "empty", "empty_like"}
_PLAIN_CALLS = {"range", "reversed", "len", "min", "max", "int", "float", "abs",
                # a checkpointed loop's plan and its tapes' growth: primal values only (the
                # snapshots hold primal state; adjoints carry their lanes through)
                "checkpoint_plan", "reserve_tape"}


def _is_adjoint(node) -> bool:
    return isinstance(node, ast.Name) and node.id.endswith("_bar")


def _reset(call) -> bool:
    """`np.zeros_like(a_bar)`: an adjoint array reset (an array allocated in a loop)."""
    return (isinstance(call.func, ast.Attribute) and call.func.attr in ("zeros_like",
                                                                        "empty_like")
            and len(call.args) == 1 and _is_adjoint(call.args[0]) and not call.keywords)


class _Check(ast.NodeVisitor):
    def __init__(self, views=frozenset(), primal=()):
        self.problem = None
        self.views = views  # ids of `A_bar[i, :]` bound to a row name: views, lanes last
        self.primal = {id(c) for c in primal}  # calls of primal values (lane_calls.py)
        self.guarded = []  # those met where a call is refused otherwise: checked at run time

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            ok = func.value.id == "math" or (func.value.id == "np" and func.attr in _ALLOCATIONS)
            ok = ok or (func.attr in ("append", "pop") and func.value.id.endswith("tape"))
            ok = ok or (func.attr == "copy" and not node.args and not node.keywords)
        else:
            ok = isinstance(func, ast.Name) and func.id in _PLAIN_CALLS
        if not ok and id(node) in self.primal:
            ok = True
            self.guarded.append(node)
        if not ok:
            self.problem = self.problem or f"the call {ast.unparse(func)}"
        if _reset(node):
            return  # zeros shaped like an adjoint array: its lanes included
        for arg in node.args:
            if any(_is_adjoint(n) for n in ast.walk(arg)):
                self.problem = self.problem or f"an adjoint passed to {ast.unparse(func)}"
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if _is_adjoint(node.value) and id(node) not in self.views \
                and any(isinstance(n, ast.Slice) for n in ast.walk(node.slice)):
            self.problem = self.problem or f"the slice {ast.unparse(node)}"
        self.generic_visit(node)


def _adjoint_bindings(tree):
    """(the assignments `t = a_bar[...]` binding a name to part of an adjoint array, the
    names among them that are rows: indexed themselves). A row's own parts (`t = row[j]`)
    count as parts of an adjoint too (`p_bar_row = p_bar[0]`, then `v = p_bar_row[k]`)."""
    subscripts = [n for n in ast.walk(tree) if isinstance(n, ast.Subscript)
                  and isinstance(n.value, ast.Name)]
    assigns = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Subscript)
               and isinstance(n.value.value, ast.Name)]
    rows: set = set()
    while True:
        bindings = [n for n in assigns
                    if _is_adjoint(n.value.value) or n.value.value.id in rows]
        elements = {n.targets[0].id for n in bindings}
        grown = {n.value.id for n in subscripts if n.value.id in elements}
        if grown == rows:
            return bindings, rows
        rows = grown


class _Lanes(ast.NodeTransformer):
    def __init__(self, parameters, rows):
        self.parameters = parameters  # the caller's shadows: added into in place, as before
        self.rows = rows  # rows of adjoint arrays: views written through, in place

    def visit_AugAssign(self, node):
        if _is_adjoint(node.target) and node.target.id not in self.parameters | self.rows:
            value = ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=node.op,
                              right=node.value)
            return ast.copy_location(ast.Assign(targets=[node.target], value=value), node)
        return node

    def visit_Assign(self, node):
        target = node.targets[0] if len(node.targets) == 1 else None
        if not isinstance(target, ast.Name):
            return node
        value = node.value
        if target.id.endswith("_bar") and isinstance(value, ast.Call) \
                and isinstance(value.func, ast.Attribute) and value.func.attr in _ALLOCATIONS \
                and not _reset(value):
            node.value = ast.Call(ast.Name("_srcad_lanes", ast.Load()), [value], [])
        elif isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                and (_is_adjoint(value.value) or value.value.id in self.rows) \
                and target.id not in self.rows:
            node.value = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "copy", ast.Load()),
                                  [value], [])
        return node


def batched_function(compiled, width: int, restored: bool = False):
    """The reverse function of `compiled` (python backend, list tapes) running W lanes of
    adjoints; raises BatchUnsupported when its code cannot run them. `restored`: the caller
    puts back every array f writes when a call of primal values stops a sweep (the jacobian
    operator's Outputs and Caches, its copy of x), so such calls run guarded also where f
    writes its arguments."""
    tree = ast.parse(compiled.source)
    # a name bound to an element of an adjoint array is copied (below); one that is indexed
    # itself is a row (or a slice), a view the code writes through: with the lanes last it is
    # the same view of the lanes, kept as it is (a copy would lose those writes)
    bindings, rows = _adjoint_bindings(tree)
    # f writes no argument: a sweep stopped by a guard leaves the caller's arrays as given
    lanes = lane_names(tree)
    primal = [] if compiled.written and not restored else primal_calls(tree, lanes)
    check = _Check({id(n.value) for n in bindings if n.targets[0].id in rows}, primal)
    check.visit(tree)
    if check.problem:
        raise BatchUnsupported(f"batched reverse mode runs element-by-element code; the "
                               f"reverse code has {check.problem}", construct="batch",
                               hint="leave chunk out: one reverse sweep per row")
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    parameters = {a.arg for a in function.args.args}
    tree = _Lanes(parameters, rows).visit(wrap_primal_calls(tree, check.guarded, lanes))
    tree = ast.fix_missing_locations(tree)
    namespace = dict(compiled.function.__globals__)
    namespace["_srcad_lanes"] = lambda a: np.zeros(np.shape(a) + (width,))
    namespace[GUARD] = scalar_result
    exec(compile(tree, f"<srcad batched reverse {compiled.name}>", "exec"), namespace)
    user = compiled.codes[0][1]  # f's code (srcad/build/pipeline.py)
    return located(namespace[compiled.function.__name__], user.co_filename,
                   user.co_firstlineno)


class BatchedReverseEngine:
    """Rows `start .. start + W` of a jacobian per reverse sweep: lane k's cotangent is the
    unit vector e_(start + k) of the output (an Output array's shadow or the returned array's
    seed), and x's adjoint array (lanes last) holds the W rows afterwards."""

    def __init__(self, f, slots, template, width: int, backend: str = "python"):

        self.slots, self.width, self.backend = slots, width, backend
        specs = tuple(_spec(s, False) for s in slots)
        if backend == "numba":
            # memory=0: rewritten into lanes below, without the budget fallback
            self.compiled = _reverse_code(f, specs, "numba", False, memory=0)
        else:
            self.compiled = _compiled(f, Request("reverse", specs, backend="python"))
        refuse_written_constants(self.compiled, slots)
        try:
            if backend == "numba":
                ndims = [np.ndim(v.value) if v.role != "constant" and v.is_array else None
                         for v in slots]
                seed_ndim = np.ndim(template) if isinstance(template, np.ndarray) else None
                self.function, rows = numba_lanes_function(self.compiled, ndims, seed_ndim)
            else:
                # rows() starts each pass from the Outputs and Caches as given, on a
                # copy of an x f writes (the caller puts them back if lanes stop)
                self.function = batched_function(self.compiled, width, restored=True)
        except BatchUnsupported as err:
            raise err.at(f.__code__.co_filename, f.__code__.co_firstlineno) from None
        self.flat, self.value_index, self.zeroed = [], [], []
        self.x_bar = self.seed = None
        for slot in slots:
            self.value_index.append(len(self.flat))
            self.flat.append(slot.value)
            if slot.role == "constant":
                continue
            shadow = np.zeros(np.shape(slot.value) + (width,))
            self.zeroed.append(shadow)
            if slot.role == "x":
                self.x_bar = shadow
            elif slot.role == "output":
                self.seed = shadow
            self.flat.append(shadow)
        if self.seed is None:  # a returned array: its seed is result_bar
            self.seed = np.zeros(np.shape(template) + (width,))
            self.flat.append(self.seed)
        else:  # numba: result_bar is typed even where f returns nothing
            self.flat.append(np.zeros(width) if backend == "numba" else self.seed)
        self.tape_count = 0
        if backend == "numba":  # the lanes of adjoint floats, then the tapes (kept, grown)

            self.flat.append(np.zeros((rows, width)))
            self.flat += tape_buffers(self.compiled)
            self.tape_count = len(self.compiled.tapes)
        self.input_copy = InputCopy.needed(self.compiled, slots, self.flat, self.value_index, f)
        self.output_restore = OutputRestore.needed(slots, self.flat, self.value_index)

    def set_values(self, values):
        for index, v in zip(self.value_index, values):
            self.flat[index] = v
        if self.input_copy is not None:
            self.input_copy.take(self.flat)
        self.output_restore.take(self.flat)

    def is_current(self) -> bool:
        return self.compiled.is_current()

    def rows(self, J, start: int, m: int):
        """J[start + k] = row start + k of the jacobian, for the W lanes (fewer at the end)."""
        for buffer in self.zeroed:
            buffer.fill(0.0)
        seed = self.seed.reshape(-1, self.width)
        seed.fill(0.0)
        count = min(self.width, m - start)
        seed[start + np.arange(count), np.arange(count)] = 1.0
        if self.input_copy is not None:
            self.input_copy.refill()
        self.output_restore.refill(self.flat)
        result = call_generated(self.function, self.flat)
        if self.tape_count:
            self.flat[-self.tape_count:] = kept_tapes(self.flat[-self.tape_count:], result[2:])
        J[start:start + count] = self.x_bar.reshape(-1, self.width)[:, :count].T
        return result[0]


def prepare_batched_reverse_jacobian(f, slots, template, chunk, backend, n, m):
    """jacobian(mode="reverse", chunk=W): W rows of J per reverse sweep (python: lanes as
    vectors; numba: a loop over the lanes, srcad/operators/batched_lanes.py)."""

    engine = BatchedReverseEngine(f, slots, template, int(chunk), backend)
    return make_prep("jacobian", f, slots, "reverse", int(chunk), engine, n=n, m=m,
                     batched=True)


def batched_autodiff(mode, f, args, seed, backend="python"):
    """autodiff(Reverse | ReverseWithPrimal, f, ..., BatchDuplicated(x, shadows), ...): W
    cotangents in one sweep (python backend). Lane k's seed is the shadow k of each array f
    writes (its cotangent) and `seed` (a number for every lane, or W numbers for a float
    result, or an array of shape (W,) + the result's shape); lane k's adjoints are added into
    shadow k of every input. Active floats get their W derivatives as an array. numba: the
    lanes loop (srcad/operators/batched_lanes.py); an array result's seed= has the leading axis
    W."""

    batches = [a for a in args if isinstance(a, BatchDuplicated)]
    widths = {len(a.shadows) for a in batches}
    if len(widths) != 1 or 0 in widths:
        raise ArgumentError(f"BatchDuplicated arguments need one width W >= 1, got {widths}")
    width = widths.pop()
    if any(type(a) is Duplicated for a in args):
        raise ArgumentError("mixing Duplicated and BatchDuplicated in one call",
                            hint="give every differentiated array W shadows")
    single = [Duplicated(a.value, a.shadows[0]) if isinstance(a, BatchDuplicated) else a
              for a in args]
    call = _arguments(f, mode, single, None, backend)  # checks kinds, dtypes, the first shadows
    compiled = _compiled(f, call.request(mode, backend))
    refuse_aliased_writes([a.value if isinstance(a, Annotation) else a for a in args],
                          compiled.written, f)
    seed_lanes = _lanes_seed(seed, width)
    try:
        if backend == "numba":
            ndims = [np.ndim(a.value) if isinstance(a, BatchDuplicated) else None for a in args]
            seed_ndim = np.ndim(seed_lanes) - 1 if np.ndim(seed_lanes) else None
            function, rows = numba_lanes_function(compiled, ndims, seed_ndim)
        else:
            function = batched_function(compiled, width)
    except BatchUnsupported as err:
        raise err.at(f.__code__.co_filename, f.__code__.co_firstlineno) from None
    flat, copy_back, position = list(call.flat), [], 0
    for k, arg in enumerate(args):  # call.flat: value (and shadow) per argument, in order
        if isinstance(arg, BatchDuplicated):
            for s in arg.shadows:
                _check_shadow(k, arg.value, s)
            lanes = np.stack([np.asarray(s, dtype=float) for s in arg.shadows], axis=-1)
            flat[position + 1] = lanes
            copy_back.append((lanes, arg.shadows))
            position += 2
        else:
            position += 1
    if backend == "numba":
        flat.append(seed_lanes if np.ndim(seed_lanes) else np.full(width, seed_lanes))
        flat.append(np.zeros((rows, width)))
        buffers = take_buffers(compiled)
        value, adjoints, *grown = call_generated(function, flat + buffers)
        compiled.spare.append(kept_tapes(buffers, grown))
    else:
        flat.append(seed_lanes)
        value, adjoints = function(*flat)
    for lanes, shadows in copy_back:
        for k, shadow in enumerate(shadows):
            shadow[...] = lanes[..., k]
    derivatives = iter(np.broadcast_to(a, (width,)).copy() for a in adjoints)
    out = tuple(next(derivatives) if isinstance(a, Active) else None for a in args)
    return (out, value) if mode.with_primal else out


def _lanes_seed(seed, width):
    """The result's adjoint with the lanes last (a number broadcasts to every lane)."""
    if seed is None:
        return 1.0
    seed = np.asarray(seed, dtype=float)
    if seed.ndim == 0:
        return float(seed)
    if seed.shape[0] != width:
        raise ArgumentError(f"seed= of a batch of {width} lanes is a number or has a leading "
                            f"axis of {width}, got shape {seed.shape}", construct="seed")
    return np.moveaxis(seed, 0, -1).copy()


differentiate.register_mode("batched_reverse", batched_autodiff)
