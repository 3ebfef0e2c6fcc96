"""np.concatenate, np.stack, np.hstack, np.vstack and np.column_stack of an array: of the list
of its rows, as NumPy reads it (a list of arrays grown by append is such an array after
srcad/transform/normalize/array_rows.py). Once types are known, each becomes the reshape or
transpose it is, by the rank of the rows and the literal `axis=`:

| call of A            | rows: numbers            | vectors                | matrices          |
|----------------------|--------------------------|------------------------|-------------------|
| np.stack(A, axis=1)  | refused (AxisError)      | np.transpose(A).copy() | placed by a loop  |
| np.concatenate(A)    | refused (NumPy raises)   | A.reshape(-1).copy()   | A.reshape(-1, b)  |
| np.hstack(A)         | A.copy()                 | A.reshape(-1).copy()   | placed (axis 1)   |
| np.vstack(A)         | A.reshape(-1, 1).copy()  | A.copy()               | as np.concatenate |
| np.column_stack(A)   | A.reshape(1, -1).copy()  | np.transpose(A).copy() | placed (axis 1)   |

(b: `A.shape[2]`, the result copied). `np.stack(A)` (axis 0) is `A.copy()`,
`np.concatenate(A, axis=None)` `A.reshape(-1).copy()`. Matrices (or arrays of higher rank)
joined along another axis are written by a loop into zeros, each in its place:
`joined = np.zeros((a, n * b)); for k in range(n): joined[:, k * b:(k + 1) * b] = A[k]`.
Each raises ValueError on an empty list, as NumPy does: a check of `A.shape[0]` before the
statement, so the call must be evaluated whenever its statement is (not in a branch of a
conditional expression, an `and`/`or`, a comprehension or a `while` test). What is refused
names the call and its line.

    s = np.sum(np.vstack(hs)[-1])    ->    if hs.shape[0] == 0:
                                              raise ValueError("srcad: ...")
                                          vstack_of_rows = hs.copy()
                                          s = np.sum(vstack_of_rows[-1])
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Types
from srcad.analysis.value_types import Array
from srcad.frontend import syntax as S
from srcad.frontend.refused_code import set_aside_node
from srcad.transform.normalize.array_rows import each_statement, writes_element
from srcad.transform.normalize.list_reductions import building_call

_CONDITIONAL = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.GeneratorExp,
                gast.SetComp, gast.DictComp)
_RUN_TIME_REFUSAL = "srcad: "  # srcad/build/running.py raises such an error as it is


def build_from_rows(norm, arg_types: dict) -> None:
    """The building calls of an array in `norm.body` as the reshapes they are (above); what
    cannot be is set aside with its refusal. Typed again after each round: a call's result
    may be what the next one's array is made from."""
    if not any(building_call(norm.parsed, n, of_name=False)
               for stmt in norm.body for n in S.walk(stmt)):
        return  # (nothing to type)
    for _ in range(10):
        types = Types(norm, arg_types, check=False)
        rewrite = _Rewrite(norm, types)
        norm.body = rewrite.block(norm.body)
        for error in rewrite.refusals:
            norm.body = set_aside_node(norm.body, error.node, error, norm.refusals)
        if not rewrite.changed:
            break
    _rows_checked(norm, Types(norm, arg_types, check=False))


def _rows_checked(norm, types) -> None:
    """Refuse an append of a value whose rank is not the rows' rank of its list's array: the
    rows were shaped with the joins typed as their arrays (list_reductions.joins_as_arrays),
    and a value computed from a join has the join's rank."""
    for buffer, list_name in norm.namer.list_buffers.items():
        array = types.of(S.name(buffer))
        for write in [n for stmt in norm.body for n in S.walk(stmt)
                      if writes_element(n, buffer)]:
            kind = types.of(write.value)
            if isinstance(array, Array) and getattr(kind, "ndim", 0) != array.ndim - 1 \
                    and kind is not None:
                error = norm.parsed.error(write, "append", f"the arrays appended to "
                                          f"`{list_name}` are computed from a join of a list "
                                          "(np.vstack, np.concatenate, ...) whose rank srcad "
                                          "does not know before the loop", hint="bind the "
                                          "join to a name before the loop")
                norm.body = set_aside_node(norm.body, write, error, norm.refusals)


class _Rewrite:
    def __init__(self, norm, types):
        self.norm = norm
        self.types = types
        self.changed = False
        self.refusals: list = []

    def block(self, stmts) -> list:
        return each_statement(stmts, self.statement)

    def statement(self, stmt) -> list:
        own = [stmt.iter] if isinstance(stmt, gast.For) else [stmt.test] \
            if isinstance(stmt, (gast.If, gast.While)) else [] if hasattr(stmt, "body") \
            else [stmt]
        before: list = []
        for root in own:
            for call, conditional in _calls(root, False):
                fname = building_call(self.norm.parsed, call, of_name=False)
                kind = self.types.of(call.args[0]) if fname else None
                if not isinstance(kind, Array):
                    continue
                if conditional or isinstance(stmt, gast.While):
                    self.refuse(call, fname, "inside a conditional expression, an and/or, a "
                                "comprehension or a while test", "bind it to a name in a "
                                "statement of its own")
                    continue
                checks = self.checked(call, fname)
                joined = self.norm.namer.fresh(f"{fname}_of_rows")
                made = self.rewritten(call, fname, kind.ndim - 1, joined)
                if made is not None:  # bound to a name: indexed like any array (`[-1]`)
                    before += checks + [S.relocated(stmt, call) for stmt in made]
                    _replace(root, call, S.name(joined))
                    self.changed = True
        return before + [stmt]

    def refuse(self, call, fname, what, hint):
        self.refusals.append(self.norm.parsed.error(call, f"np.{fname}", f"np.{fname} of "
                                                    f"a list or array {what}", hint=hint))

    def checked(self, call, fname) -> list:
        """The check that the list is not empty (after binding its array to a name)."""
        out = []
        if not isinstance(call.args[0], gast.Name):
            rows = self.norm.namer.fresh("rows")
            out.append(S.assign(S.name(rows), call.args[0]))
            call.args[0] = S.name(rows)
        message = (f"{_RUN_TIME_REFUSAL}np.{fname} of an empty list (NumPy raises: need at "
                   f"least one array to {'stack' if fname == 'stack' else 'concatenate'})")
        out += S.parse_stmts(f"if {call.args[0].id}.shape[0] == 0:\n"
                             f"    raise ValueError({message!r})\n")
        return [S.relocated(stmt, call) for stmt in out]

    def rewritten(self, call, fname, rows, joined):
        """The statements binding `joined` to `call` for rows of rank `rows` (its array
        bound to a name first, by `checked`), or None after recording its refusal."""
        axis = 0
        if call.keywords and fname not in ("stack", "concatenate"):
            self.refuse(call, fname, "with axis= (NumPy's takes none: a TypeError)",
                        "np.concatenate(xs, axis=k) joins along an axis")
            return None
        for keyword in call.keywords:
            value = keyword.value
            if isinstance(value, gast.Constant) and value.value is None and fname == "concatenate":
                axis = None
            elif isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub) \
                    and isinstance(value.operand, gast.Constant) \
                    and type(value.operand.value) is int:
                axis = -value.operand.value
            elif isinstance(value, gast.Constant) and type(value.value) is int:
                axis = value.value
            else:
                self.refuse(call, fname, "with a computed axis", "write axis= as a literal int")
                return None
        if fname in ("stack", "concatenate") and axis is not None and rows + (
                fname == "stack") > 0:
            bound = rows + 1 if fname == "stack" else rows
            if not -bound <= axis < bound:
                self.refuse(call, fname, f"of rows of rank {rows} with axis={axis} (NumPy "
                            "raises an AxisError)", "give an axis within the result's rank")
                return None
            axis %= bound
        form = _form(fname, rows, axis)
        if form is None and rows >= 2 and (fname != "concatenate" or axis is not None):
            return _placed_rows(self.norm.namer, call.args[0], joined, fname, rows, axis)
        if form is None:
            what = "of numbers (NumPy raises ValueError: zero-dimensional arrays cannot be " \
                "concatenated)" if rows == 0 else f"of arrays of rank {rows} along axis " \
                f"{1 if axis == 0 else axis}"
            self.refuse(call, fname, what, "np.stack(xs) (an array with an axis more) and "
                        "index or reshape it" if rows else "np.array(xs) makes an array of "
                        "numbers")
            return None
        return [S.assign(S.name(joined), S.substitute(form, {"A": call.args[0]}))]


def _placed_rows(namer, rows_array, joined, fname, rows, axis) -> list:
    """`joined = np.zeros(shape)` and a loop writing each row of `rows_array` (of rank
    `rows`) in its place: along a new axis `axis` (np.stack), or side by side along `axis`
    (np.concatenate; np.hstack and np.column_stack along axis 1)."""
    A = rows_array.id
    k = namer.fresh("k")
    axis = 1 if fname in ("hstack", "column_stack") else axis
    if fname == "stack":
        dims = [f"{A}.shape[{j}]" for j in range(1, axis + 1)] + [f"{A}.shape[0]"] + [
            f"{A}.shape[{j}]" for j in range(axis + 1, rows + 1)]
        place = k
    else:
        dims = [f"{A}.shape[0] * {A}.shape[{j + 1}]" if j == axis else f"{A}.shape[{j + 1}]"
                for j in range(rows)]
        place = f"{k} * {A}.shape[{axis + 1}]:({k} + 1) * {A}.shape[{axis + 1}]"
    return S.parse_stmts(f"{joined} = np.zeros(({', '.join(dims)}))\n"
                         f"for {k} in range({A}.shape[0]):\n"
                         f"    {joined}[{':, ' * axis}{place}] = {A}[{k}]\n")


def _form(fname, rows, axis):
    """The template, of the array `A` of the rows, of the call (None: refused)."""
    rest = "".join(f", A.shape[{k}]" for k in range(2, rows + 1))
    if fname == "concatenate" and axis is None:
        return "A.reshape(-1).copy()"
    if fname == "stack":
        return "A.copy()" if axis == 0 else "np.transpose(A).copy()" if rows == 1 else None
    if fname == "concatenate":
        return None if rows == 0 or axis != 0 else f"A.reshape(-1{rest}).copy()"
    if fname == "hstack":
        return "A.copy()" if rows == 0 else "A.reshape(-1).copy()" if rows == 1 else None
    if fname == "vstack":
        return "A.reshape(-1, 1).copy()" if rows == 0 else "A.copy()" if rows == 1 else \
            f"A.reshape(-1{rest}).copy()"
    return "A.reshape(1, -1).copy()" if rows == 0 else "np.transpose(A).copy()" \
        if rows == 1 else None


def _calls(node, conditional):
    """(call, whether it is evaluated only on some paths of its statement) for each call in
    `node`, innermost first."""
    for field, value in gast.iter_fields(node):
        inner = conditional or (isinstance(node, _CONDITIONAL) and field not in ("test",)) \
            or (isinstance(node, gast.BoolOp) and field == "values")
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.AST):
                yield from _calls(child, inner)
    if isinstance(node, gast.Call):
        yield node, conditional


def _replace(root, old, new) -> None:
    """Put `new` where `old` is in `root` (an expression or a statement)."""
    for parent in S.walk(root):
        for field, value in gast.iter_fields(parent):
            if value is old:
                setattr(parent, field, gast.copy_location(new, old))
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[id(v) for v in value].index(id(old))] = gast.copy_location(new, old)
                return

