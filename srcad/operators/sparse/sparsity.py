"""The sparsity pattern of a Jacobian, found by propagating dependency sets, and its coloring.

Detection (`jacobian_pattern`): srcad's forward-mode code of f (one tangent per value) is run
with every tangent replaced by a `Deps`, the set of input indices it depends on. Forward code
computes each tangent as a sum of tangents times partial derivatives; `Deps` ignores the
partials (a product keeps the set, a sum is the union), so the sets are exactly the structural
dependencies SparseConnectivityTracer.jl computes, whatever the values of the partials: a
partial that is zero at the point (x * y at y = 0) keeps its entry. The pattern is a superset
of the nonzeros of J at every point where f takes the same branches.

What it cannot see: which branch f takes. The primal runs alongside the sets, so `if`, `while`
and loop bounds follow the values at the preparation point; a branch on an input's value may
take another path elsewhere, and the pattern is then that of the path taken at preparation
(the caveat is in docs/prepared_operators.md). Tangent code that tries to turn a set into a
number (a library call srcad has no tangent rule for in this form) raises a TypeError,
reported as a SrcadError rather than guessed.

Coloring (`color_columns`): columns that share no row get one color (the column intersection
graph's greedy distance-2 coloring, as SparseMatrixColorings.jl's `GreedyColoringAlgorithm`
with the natural order); the compressed Jacobian has one column per color.
"""

from __future__ import annotations

import ast
import re

import numpy as np

from srcad.errors import SrcadError

_ZERO_MAKERS = {"zeros", "zeros_like", "empty", "empty_like", "ones", "ones_like", "full",
                "full_like", "copy", "array"}


class Deps:
    """A tangent as the set of input indices it depends on. Numbers are empty sets: a product
    with a number keeps the set, a sum is the union."""

    __slots__ = ("indices",)

    def __init__(self, indices: frozenset):
        self.indices = indices

    def _union(self, other):
        if other.__class__ is Deps:
            if other.indices <= self.indices:
                return self
            if self.indices <= other.indices:
                return other
            return Deps(self.indices | other.indices)
        if other.__class__ not in _NUMBER_TYPES:
            if isinstance(other, np.ndarray):
                return NotImplemented  # elementwise, by the array (`np.where`'s 0-d result)
            _check_number(other)
        return self

    def _keep(self, other):
        if other.__class__ is Deps:  # not linear code (a product of two tangents): union
            return self._union(other)
        if other.__class__ not in _NUMBER_TYPES:
            if isinstance(other, np.ndarray):
                return NotImplemented
            _check_number(other)
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = _union
    __mul__ = __rmul__ = __truediv__ = _keep

    def __neg__(self):
        return self

    __pos__ = __neg__

    def __repr__(self):
        return f"Deps({sorted(self.indices)})"


_NUMBER_TYPES = frozenset((float, int, bool, np.float64, np.int64))


def _check_number(other):
    if not isinstance(other, (int, float, np.integer, np.floating, np.bool_)):
        raise TypeError(f"a dependency set met {type(other).__name__}")


class _ObjectTangents(ast.NodeTransformer):
    """Tangent arrays the forward code allocates (`v_dot = np.zeros_like(v)`) become object
    arrays, so they can hold `Deps` (a float array would refuse them)."""

    def visit_Assign(self, node):
        targets = [t for t in node.targets if isinstance(t, ast.Name)]
        if len(targets) == 1 and targets[0].id.endswith("_dot") and _makes_array(node.value):
            node.value = ast.Call(func=ast.Name("_srcad_object_array", ast.Load()),
                                  args=[node.value], keywords=[])
        return node


def _makes_array(value) -> bool:
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "np"
            and value.func.attr in _ZERO_MAKERS)


def _object_array(array):
    """An object array of the same shape (zeros: empty sets; Deps kept)."""
    array = np.asarray(array)
    return array if array.dtype == object else array.astype(object)


def _empty_like(value):
    return _object_array(np.zeros_like(value)) if isinstance(value, np.ndarray) else 0.0


_TRACING_FILE = "<srcad sparsity tracing>"
_LINE_COMMENT = re.compile(r"#\s*line (\d+): (.*)")


def _user_statement(compiled, error):
    """(line, statement) of the user's code the failing tracing line was generated from (the
    generated code's `# line N: ...` comments), or (None, None)."""
    tb, lineno = error.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _TRACING_FILE:
            lineno = tb.tb_lineno
        tb = tb.tb_next
    if lineno is None:
        return None, None
    for text in reversed(compiled.source.splitlines()[:lineno]):
        found = _LINE_COMMENT.search(text)
        if found:
            return int(found.group(1)), found.group(2).strip()
    return None, None


def tracing_function(compiled):
    """The generated forward function (one tangent per value) with its tangent arrays made
    object arrays."""
    tree = _ObjectTangents().visit(ast.parse(compiled.source))
    namespace = dict(compiled.function.__globals__)
    namespace["_srcad_object_array"] = _object_array
    exec(compile(ast.fix_missing_locations(tree), _TRACING_FILE, "exec"), namespace)
    return namespace[compiled.function.__name__]


def jacobian_pattern(compiled, slots, f) -> tuple[np.ndarray, np.ndarray, int]:
    """(indptr, indices, number of rows) of the CSR pattern of d output / d x at the slots'
    values. `compiled` is f's forward code for one tangent per value (python backend)."""
    function = tracing_function(compiled)
    flat, output_shadow = [], None
    for slot in slots:
        value = slot.value.copy() if isinstance(slot.value, np.ndarray) else slot.value
        flat.append(value)
        if slot.role == "constant":
            continue
        if slot.role == "x":
            seeds = np.empty(np.shape(value), dtype=object)
            seeds.reshape(-1)[...] = [Deps(frozenset((j,))) for j in range(np.size(value))]
            flat.append(seeds)
            continue
        shadow = _empty_like(value)
        if slot.role == "output":
            output_shadow = shadow
        flat.append(shadow)
    try:
        _, tangents = function(*flat)
    except TypeError as err:
        line, statement = _user_statement(compiled, err)
        raise SrcadError(f"the sparsity pattern could not be traced: {err} (a dependency set "
                         "reached code that needs a number)", filename=f.__code__.co_filename,
                         line=line, construct=statement or f.__name__,
                         hint="pass sparse=False (a dense jacobian)") from None
    out = output_shadow if output_shadow is not None else tangents[0]
    rows = np.reshape(np.asarray(out, dtype=object), -1)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    columns = []
    for i, t in enumerate(rows):
        cols = sorted(_indices(t))
        columns.extend(cols)
        indptr[i + 1] = len(columns)
    return indptr, np.asarray(columns, dtype=np.int64), len(rows)


def _indices(tangent) -> frozenset:
    """The inputs an output element's tangent depends on: a `Deps`, a number (none), or an
    array holding them (`y_dot[0] = np.where(c, x_dot[1], 0.0)` stores a 0-d array, whose
    set was once dropped: a zero column where J has an entry)."""
    if isinstance(tangent, Deps):
        return tangent.indices
    if isinstance(tangent, np.ndarray):
        return frozenset().union(*(_indices(t) for t in tangent.reshape(-1)))
    if tangent is None or isinstance(tangent, (int, float, complex, np.number, np.bool_)):
        return frozenset()
    raise SrcadError(f"the sparsity pattern could not be traced: an output's tangent is a "
                     f"{type(tangent).__name__}", construct="sparse=True",
                     hint="pass sparse=False (a dense jacobian)")


def color_columns(indptr, indices, n: int) -> np.ndarray:
    """Greedy coloring of the columns (natural order): two columns with a nonzero in the same
    row get different colors. Returns the color of each column (0, 1, ...).

    Each row keeps the set of colors its columns have so far, as the bits of an int: column
    j takes the lowest color absent from every one of its rows, then joins them. That is
    exactly the greedy distance-2 coloring of the column intersection graph, in O(nonzeros)."""
    m = len(indptr) - 1
    rows_of_nz = np.repeat(np.arange(m), np.diff(indptr))
    order = np.argsort(indices, kind="stable")  # CSC: the rows of each column
    col_ptr = np.concatenate([[0], np.cumsum(np.bincount(indices, minlength=n))])
    col_rows = rows_of_nz[order].tolist()
    col_ptr = col_ptr.tolist()
    used = [0] * m  # per row: the colors taken, as bits
    colors = np.zeros(n, dtype=np.int64)
    for j in range(n):
        rows = col_rows[col_ptr[j]:col_ptr[j + 1]]
        taken = 0
        for r in rows:
            taken |= used[r]
        bit = ~taken & (taken + 1)  # the lowest color not taken
        colors[j] = bit.bit_length() - 1
        for r in rows:
            used[r] |= bit
    return colors
