"""Names in f's forward code for the decision slice (`decisions.py`): each loop's own
target name where its body never rebinds it (`_LoopTargets`), and the ndim of the arrays a
subscript reads one element of (`local_ndims`), so that reading `a[i, j]` is known to copy a
number rather than share a view; the calls the slice makes to log its decisions, and the
names of the calls that decide (select) or share (view) their arguments.
"""

from __future__ import annotations

import ast

import numpy as np

# calls whose result selects among their arguments, or makes an int (an index) of a float
SELECTIONS = frozenset({
    "where", "maximum", "minimum", "fmax", "fmin", "clip", "select", "piecewise", "int",
    "round", "floor", "ceil", "trunc", "rint", "argmax", "argmin", "argsort", "searchsorted",
    "digitize", "nonzero", "astype", "max", "min", "sort", "amax", "amin", "nanmax", "nanmin",
    "unique", "compress", "extract", "take", "choose", "flatnonzero", "argwhere", "lexsort",
    "partition", "argpartition", "count_nonzero", "take_along_axis"})
# selections logged as which argument the result equals (not by value)
COMPARED = frozenset({"maximum", "minimum", "fmax", "fmin", "clip", "max", "min", "amax",
                       "amin"})
# NumPy functions and array methods whose result may be a view of an argument (the others
# return new arrays or numbers); any other Python function may return an argument itself
VIEWS = frozenset({"reshape", "ravel", "transpose", "squeeze", "expand_dims", "asarray",
                    "asanyarray", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to",
                    "swapaxes", "moveaxis", "diagonal", "real", "imag", "flip", "fliplr",
                    "flipud", "rot90", "split", "array_split", "hsplit", "vsplit", "dsplit",
                    "ascontiguousarray", "view", "T", "flat", "matrix_transpose",
                    "permute_dims", "unstack", "broadcast_arrays", "meshgrid"})
NUMBERS = frozenset({"float", "int", "bool", "len", "range", "abs", "round", "complex"})
PURE_METHODS = frozenset({"astype", "sum", "max", "min", "argmax", "argmin", "copy",
                           "reshape", "any", "all", "item", "nonzero", "round", "argsort"})


class LoopTargets(ast.NodeTransformer):
    """Inside a loop whose body never assigns its target, every read of the target is the
    loop's value: it gets a name of its own there (`i__loop3`), and `i = i__loop3` opens the
    body so code after the loop reads i as before. So a loop run under a varying test, or an
    `i` assigned a float elsewhere, does not make every other loop's `i` vary."""

    def __init__(self):
        self.scope, self.count = {}, 0

    def rename(self, function):
        function.body = [self.visit(stmt) for stmt in function.body]
        return function

    def visit_For(self, node):
        node.iter = self.visit(node.iter)
        node.orelse = [self.visit(s) for s in node.orelse]
        name = node.target.id if isinstance(node.target, ast.Name) else None
        stored = {n.id for stmt in node.body for n in ast.walk(stmt)
                  if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if name is None or name in stored:
            node.target = self.visit(node.target)
            node.body = [self.visit(s) for s in node.body]
            return node
        outer = self.scope.get(name)
        self.count += 1
        fresh = self.scope[name] = f"{name}__loop{self.count}"
        node.target = ast.Name(fresh, ast.Store())
        node.body = [_assign(name, ast.Name(fresh, ast.Load()))] + [self.visit(s)
                                                                   for s in node.body]
        if outer is None:
            del self.scope[name]
        else:
            self.scope[name] = outer
        return node

    def visit_Name(self, node):
        if node.id in self.scope:
            return ast.Name(self.scope[node.id], node.ctx)
        return node


_MAKERS = {"zeros", "ones", "empty", "full"}


def local_ndims(function, known) -> dict:
    """name -> ndim of the parameters that are numeric arrays and of the locals every
    assignment of which makes a new array of a plain shape (`np.zeros((n, 4))`,
    `np.zeros_like(a)`)."""
    ndims, refused = dict(known), set()
    for node in ast.walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        for target in targets:
            if not isinstance(target, ast.Name):
                refused |= {n for n in target_names(target) if isinstance(target, ast.Tuple)}
                continue
            ndim = _made_ndim(node.value, ndims) if isinstance(node, ast.Assign) else None
            if target.id in known or ndim is None or ndims.get(target.id, ndim) != ndim:
                refused.add(target.id)
            else:
                ndims[target.id] = ndim
    return {name: n for name, n in ndims.items() if name not in refused}


def _made_ndim(value, ndims):
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "np"
            and value.args):
        return None
    name, shape = value.func.attr, value.args[0]
    dtypes = [k.value for k in value.keywords if k.arg == "dtype"] + value.args[
        1 if name in ("zeros", "ones", "empty") or name.endswith("_like") else 2:][:1]
    if any(not _numeric(d) for d in dtypes):
        return None  # an object array may hold (and give out) other arrays
    if name.endswith("_like") and name[:-5] in _MAKERS:
        return ndims.get(shape.id) if isinstance(shape, ast.Name) else None
    if name not in _MAKERS:
        return None
    if isinstance(shape, ast.Tuple):
        return None if any(isinstance(e, ast.Starred) for e in shape.elts) else len(shape.elts)
    if isinstance(shape, ast.Constant) and isinstance(shape.value, int):
        return 1
    return None


def _numeric(dtype) -> bool:
    if isinstance(dtype, ast.Name):
        return dtype.id in ("float", "int", "bool", "complex")
    if isinstance(dtype, ast.Attribute):
        return dtype.attr.rstrip("0123456789") in ("float", "int", "uint", "bool", "complex",
                                                    "bool_", "intp")
    return isinstance(dtype, ast.Constant) and isinstance(dtype.value, str) and \
        dtype.value.rstrip("0123456789") in ("float", "int", "uint", "bool", "complex", "f", "i")


def _assign(name, value) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(name, ast.Store())], value=value)


def statements(body):
    for stmt in body:
        yield stmt
        for field in ("body", "orelse"):
            yield from statements(getattr(stmt, field, []) or [])


def effective(body) -> bool:
    """A block does something (more than `pass`)."""
    return any(not isinstance(s, ast.Pass) for s in body)


def target_names(target) -> set:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        return target_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(target_names(e) for e in target.elts)) if target.elts else set()
    return set()


def call(name, args) -> ast.Call:
    return ast.Call(func=ast.Name(name, ast.Load()), args=args, keywords=[])


def index_value(index) -> ast.expr:
    """An index as a value: slices become `slice(...)` calls."""
    if isinstance(index, ast.Slice):
        return call("slice", [part if part is not None else ast.Constant(None)
                               for part in (index.lower, index.upper, index.step)])
    if isinstance(index, ast.Tuple):
        return ast.Tuple([index_value(e) for e in index.elts], ast.Load())
    return call("_srcad_array", [index])


def float_type(node) -> bool:
    """`v.astype(float)` and the like: no index made."""
    dtype = node.args[0] if node.args else None
    return (isinstance(dtype, ast.Name) and dtype.id == "float") or (
        isinstance(dtype, ast.Attribute) and dtype.attr in ("float64", "float32")) or (
        isinstance(dtype, ast.Constant) and dtype.value in ("float64", "float32", "float"))


# -- what the slice calls and logs ------------------------------------------------------------
def truth(value, note=None):
    outcome = bool(value)
    if note is not None:
        note(outcome)
    return outcome


def chosen(result, *args):
    """Which arguments a selection's result equals (elementwise): the choice, not the value.
    An argument the result does not match element for element (a reduction along an axis)
    is logged by value."""
    return tuple(logged(np.equal(result, a)) if np.ndim(result) == 0 or np.ndim(a) == 0
                 or np.shape(a) == np.shape(result) else logged(a) for a in args)


def logged(value):
    """A logged value that later calls cannot change (arrays copied)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(logged(v) for v in value)
    return value


def count(iterable, note):
    items = list(iterable)
    note(("iterations", len(items)))
    return items
