"""Nested kernels made for the lengths of their operands: g's derivative code compiled into the
kernel as numbers.

A nested kernel (srcad/operators/nested_kernels.py) is general code: it carves the adjoints,
directions and boxes it hands to g's derivative code out of a workspace, as arrays, and numba
counts every reference to them atomically. Where the outer code is specialized for short
arrays (srcad/transform/small_arrays.py: a small array, or a parameter of a length the code is
made for), the lengths of a kernel call's operands are known where it rewrites the call, and
it asks for the kernel made for them (`NumbaNested.for_lengths`). That kernel is the general
kernel's source with

* its operands copied (`a0 = o0.copy()`: read element by element), its adjoints, directions
  and boxes new arrays of the operands' lengths (`np.zeros(n)`), not workspace views;
* the call of g's derivative code replaced by that code's body (its names prefixed
  `srcad_g_`, its parameters by the kernel's arrays);
* each array it returns filled element by element where the general kernel's would be (a new
  array, the `out` operand, the workspace view),

and then rewritten by srcad/transform/small_arrays.py, the operands' lengths given: every
array of the kernel becomes numbers, or the kernel is not used (`number_kernel` returns
None, and the call keeps the general kernel). g's code with tapes (a loop), a `return`
before its end, or an array the rewrite cannot hold as numbers keeps the general kernel.
The kernel checks its operands' lengths on entry, as specialized code does.

Its name is the general kernel's with the lengths appended (`_len_2_2`; `s` for a number):
srcad/transform/small_array_kernels.py reads the kind of its result from it as before.
"""

from __future__ import annotations

import re

import gast

from srcad.build.codegen import to_source
from srcad.frontend import syntax as S
from srcad.operators.nested_straight_tapes import untaped
from srcad.transform.names import Namer
from srcad.transform.small_arrays import scalar_small_arrays

PREFIX = "srcad_g_"
_NAME = re.compile(r"a(\d+)(_dot)?(_bar)?$")  # the kernel's arrays: a0, a0_bar, a0_dot, ...
_WORKSPACE = ("buf", "space", "int_space")
_KERNEL_LOCAL = re.compile(r"(a\d+(_dot)?(_bar)?|[od]\d+|out\d*|buf|space|int_space"
                           r"|srcad_result_\d+)$")


def suffix(lengths) -> str:
    """`_len_2_s`: the name's tail of the kernel for operands of these lengths."""
    return "_len" + "".join(f"_{'s' if n == 's' else int(n)}" for n in lengths)


def number_kernel(general: str, name: str, lengths, bodies: dict,
                  tuples: bool = False) -> str | None:
    """The source of the kernel `name` made from the general kernel's source `general` for
    arguments (after the workspace) of `lengths` (an int, or "s" for a number); `bodies`:
    g's derivative code by its name (gast FunctionDefs). None where it would not be all
    numbers. `tuples`: the arrays it returns as tuples of numbers (no allocation: for a
    caller reading their elements alone, srcad/transform/small_kernel_tuples.py)."""
    fn = gast.parse(general).body[0]
    params = [a.id for a in fn.args.args][2:]
    if len(params) != len(lengths):
        return None
    given = {p: n for p, n in zip(params, lengths) if n != "s"}
    numbers = {p for p, n in zip(params, lengths) if n == "s"}
    sizes = {}  # the kernel's arrays' lengths (a{i}: its operand's, or 1 for a box)
    views = {}  # a returned adjoint carved from the workspace: its view
    into = {}  # a returned adjoint written into an `out` operand where it fits
    out, carved = [], False
    lines = list(fn.body)
    for stmt in lines:
        target = _assigned(stmt)
        if target is not None and _NAME.match(target):
            value = stmt.value
            if isinstance(value, gast.Name) and value.id in given:  # a0 = o0, a0_dot = d0
                sizes[target] = given[value.id]
                stmt.value = S.parse_expr(f"{value.id}.copy()")
            elif _is_call(value, "zeros_like"):  # a fresh result
                sizes[target] = sizes.get(value.args[0].id)
                if sizes[target] is None:
                    return None
                stmt.value = S.parse_expr(f"np.zeros({sizes[target]})")
            elif isinstance(value, gast.Subscript) or _is_call(value, "reshape"):
                view = value.func.value if _is_call(value, "reshape") else value
                size = _view_size(view, sizes)
                if size is None:
                    return None
                sizes[target], views[target] = size, view
                stmt.value = S.parse_expr(f"np.zeros({size})")
            elif target not in sizes:
                return None
            out.append(stmt)
        elif isinstance(stmt, gast.If) and _is_into(stmt):  # `out` where it has the shape
            target = stmt.body[0].targets[0].id
            like = stmt.orelse[0].value.args[0].id
            if like not in sizes:
                return None
            sizes[target], into[target] = sizes[like], stmt.body[0].value.id
            out.append(S.parse_stmts(f"{target} = np.zeros({sizes[like]})")[0])
        elif _zeroing(stmt):
            continue  # `a0_bar[:] = 0.0`: new arrays are zeros
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
                or target == "out" and isinstance(stmt.value, gast.Call):  # g's code (with
            inlined = _inlined(bodies, stmt.value)  # tapes: `out`, its tapes returned)
            if inlined is None:
                return None
            out.extend(inlined)
        elif _keeps_tape(stmt):
            continue  # `if out[2] is not None: space[1] = out[2]`: g's tapes are locals
        elif isinstance(stmt, gast.Return):
            returned, carved = _returned(stmt, sizes, views, into, tuples)
            out.extend(returned)
        elif _workspace(stmt) or _element_write(stmt):
            out.append(stmt)
        else:
            return None  # g's code with tapes, or a form this does not know
    if not carved:  # no view of the workspace returned: the workspace is not read
        out = [s for s in out if not _workspace(s)]
    fn.body = [_Sizes(sizes).visit(s) for s in out]
    fn.name = name
    tree = gast.Module([fn], [])
    namer = Namer({n.id for n in gast.walk(tree) if isinstance(n, gast.Name)})
    done = scalar_small_arrays(tree, namer, numbers, given)
    if not set(sizes) <= done:
        return None
    return to_source(tree).strip()


def _assigned(stmt):
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Name):
        return stmt.targets[0].id
    return None


def _is_call(node, attr) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == attr


def _is_into(stmt) -> bool:
    """`if out.shape == a0.shape: a0_bar = out; ... else: a0_bar = np.zeros_like(a0)`."""
    return len(stmt.body) == 2 and _assigned(stmt.body[0]) is not None \
        and isinstance(stmt.body[0].value, gast.Name) and len(stmt.orelse) == 1 \
        and _assigned(stmt.orelse[0]) is not None and _is_call(stmt.orelse[0].value, "zeros_like")


def _view_size(view, sizes):
    """The length of `buf[lo:hi]` (sums of int constants and `a0.size`): 1 (a box), or that
    of the array named in `hi - lo`."""
    if not (isinstance(view, gast.Subscript) and isinstance(view.slice, gast.Slice)):
        return None
    lower, upper = _terms(view.slice.lower), _terms(view.slice.upper)
    if lower is None or upper is None:
        return None
    constant = sum(t for t in upper if isinstance(t, int)) \
        - sum(t for t in lower if isinstance(t, int))
    names = [t for t in upper if isinstance(t, str)]
    for term in (t for t in lower if isinstance(t, str)):
        if term not in names:
            return None
        names.remove(term)
    if not names:
        return constant if constant > 0 else None
    return sizes.get(names[0]) if len(names) == 1 and constant == 0 else None


def _terms(node):
    """The terms of a sum of int constants and `a0.size`: ints and names; None for another
    form."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        left, right = _terms(node.left), _terms(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return [node.value]
    if isinstance(node, gast.Attribute) and node.attr == "size" \
            and isinstance(node.value, gast.Name):
        return [node.value.id]
    return None


def _keeps_tape(stmt) -> bool:
    """`if out[k] is not None: <workspace tape> = out[k]` (a tape g's code grew, kept)."""
    if not (isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1):
        return False
    test, keep = stmt.test, stmt.body[0]
    return isinstance(test, gast.Compare) and len(test.ops) == 1 \
        and isinstance(test.ops[0], gast.IsNot) and _out_element(test.left) \
        and isinstance(keep, gast.Assign) and len(keep.targets) == 1 \
        and isinstance(keep.targets[0], gast.Subscript) \
        and isinstance(keep.targets[0].value, gast.Name) \
        and keep.targets[0].value.id in ("space", "int_space") and _out_element(keep.value)


def _out_element(node) -> bool:
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
        and node.value.id == "out"


def _zeroing(stmt) -> bool:
    return isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript) \
        and isinstance(stmt.targets[0].slice, (gast.Slice, gast.Constant)) \
        and not (isinstance(stmt.targets[0].slice, gast.Constant)
                 and type(stmt.targets[0].slice.value) is int) \
        and isinstance(stmt.value, gast.Constant) and stmt.value.value == 0.0


def _element_write(stmt) -> bool:
    """`a1[0] = o1`: a box filled."""
    return isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript) \
        and isinstance(stmt.targets[0].slice, gast.Constant)


def _workspace(stmt) -> bool:
    """`buf = space[0]`, and the `if`s growing the workspace (srcad_nested_space)."""
    if _assigned(stmt) == "buf":
        return to_source(stmt.value).strip() == "space[0]"
    return isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1 \
        and "srcad_nested_space(" in to_source(stmt.body[0]) \
        and _assigned(stmt.body[0]) in ("buf", None)


class _Sizes(gast.NodeTransformer):
    """`a0.size` as the constant length of a0."""

    def __init__(self, sizes):
        self.sizes = sizes

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "size" and isinstance(node.value, gast.Name) \
                and node.value.id in self.sizes:
            return gast.copy_location(S.const(self.sizes[node.value.id]), node)
        return node


def _inlined(bodies, call):
    """g's derivative code's body in place of its call `call` (names prefixed, parameters
    replaced by the call's arguments); None where it has a `return` before its end, tapes
    or a nested function."""
    body = bodies.get(call.func.id) if isinstance(call.func, gast.Name) else None
    body = None if body is None else untaped(body)
    if body is None or call.keywords or body.args.vararg or body.args.kwarg:
        return None
    params = [a.id for a in body.args.args]
    if len(call.args) != len(params):
        return None
    stmts = [S.clone(s) for s in body.body]
    if stmts and isinstance(stmts[0], gast.Expr) and isinstance(stmts[0].value, gast.Constant):
        stmts = stmts[1:]  # the docstring
    if not stmts or not isinstance(stmts[-1], gast.Return):
        return None
    stmts = stmts[:-1]
    module = gast.Module(stmts, [])
    if any(isinstance(n, (gast.Return, gast.FunctionDef, gast.Lambda, gast.Global,
                          gast.Nonlocal)) for n in gast.walk(module)):
        return None
    stored = {n.id for n in gast.walk(module) if isinstance(n, gast.Name)
              and not isinstance(n.ctx, gast.Load)}
    arguments = dict(zip(params, call.args))
    if stored & set(params):
        return None  # a parameter bound again
    read = {n.id for n in gast.walk(module) if isinstance(n, gast.Name)} - stored - set(params)
    if any(_KERNEL_LOCAL.match(n) for n in read):
        return None  # a global of g's code named as one of the kernel's locals
    for node in gast.walk(module):
        if isinstance(node, gast.Name) and node.id in stored:
            node.id = PREFIX + node.id
    module = _Substitute(arguments).visit(module)
    return module.body


class _Substitute(gast.NodeTransformer):
    def __init__(self, arguments):
        self.arguments = arguments

    def visit_Name(self, node):
        if node.id in self.arguments:
            return gast.copy_location(S.clone(self.arguments[node.id]), node)
        return node


def _returned(stmt, sizes, views, into, tuples=False):
    """The return of the kernel's arrays: each filled element by element where the general
    kernel's would be (a new array, its `out` operand, its workspace view), or (`tuples`) a
    tuple of its elements; and whether a workspace view is returned."""
    values = stmt.value.elts if isinstance(stmt.value, gast.Tuple) else [stmt.value]
    lines, results, carved = [], [], False
    for k, value in enumerate(values):
        name = value.id if isinstance(value, gast.Name) else None
        if name is None or name not in sizes:
            results.append(value)
            continue
        if tuples:
            results.append(gast.Tuple([S.parse_expr(f"{name}[{j}]")
                                       for j in range(sizes[name])], gast.Load()))
            continue
        n, result = sizes[name], f"srcad_result_{k}"
        if name in views:
            carved = True
            lines.append(S.assign(S.name(result, store=True), S.clone(views[name])))
        elif name in into:
            lines += S.parse_stmts(f"if {into[name]}.shape == ({n},):\n"
                                   f"    {result} = {into[name]}\nelse:\n"
                                   f"    {result} = np.empty({n})")
        else:
            lines.append(S.assign(S.name(result, store=True), S.parse_expr(f"np.empty({n})")))
        lines += [S.parse_stmts(f"{result}[{j}] = {name}[{j}]")[0] for j in range(n)]
        results.append(S.name(result))
    value = gast.Tuple(results, gast.Load()) if isinstance(stmt.value, gast.Tuple) \
        else results[0]
    return lines + [gast.copy_location(gast.Return(value), stmt)], carved


def returned_arrays(text: str):
    """What the kernel `text` made with `tuples=True` returns as tuples of numbers: "all"
    (one array, its result a tuple of numbers), a tuple of the positions in its returned
    tuple that are arrays, or () where none is."""
    fn = gast.parse(text).body[0]
    value = fn.body[-1].value if isinstance(fn.body[-1], gast.Return) else None
    if not isinstance(value, gast.Tuple):
        return ()
    positions = tuple(k for k, e in enumerate(value.elts) if isinstance(e, gast.Tuple))
    return positions if positions else "all"
