"""`has_aux=True` for the function transforms: `fun` returns `(value, aux)`, and only the value
is differentiated.

srcad differentiates source code, so the value alone must be a function with source. When
every `return` of `fun` is written as a pair (`return loss, {"accuracy": acc}`), the value
alone is `fun`'s own text with each `return value, aux` cut to `return value` (compiled in
`fun`'s namespace, line numbers kept, so a refusal names the user's line): the aux
expression is never differentiated, and may be anything, a dict, ints, strings. Otherwise
(`return pair`) it is a wrapper, `def fun_value(arg0, ...): value, aux = fun(arg0, ...);
return value`, which srcad differentiates by inlining `fun`; the aux is then computed inside
the differentiated code too, and must be something srcad reads (floats and arrays).
The auxiliary data comes from one more plain call of `fun`: it is whatever `fun` returns
second, never differentiated.
"""

from __future__ import annotations

import ast
import linecache
import textwrap
import types

from srcad.errors import ArgumentError
from srcad.frontend.def_trees import function_lines
from srcad.frontend.lambdas import function_name, is_lambda
from srcad.frontend.source_functions import compile_source


class ValueOnly:
    """The value-only functions of a `fun` returning `(value, aux)`, and its aux."""

    def __init__(self, fun, transform):
        self.fun = fun
        self.transform = transform
        self.functions = {}  # argument count -> the value-only function
        self.copy = value_only_copy(fun)

    def function(self, count: int):
        """A plain function of `count` arguments returning fun's value alone."""
        if self.copy is not None:
            return self.copy
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


def value_only_copy(fun):
    """`fun` with each `return value, aux` written `return value`, or None when it cannot be
    made so (a lambda, a decorated function, no source, a return that is not a pair)."""
    def cut(lines, pair):
        if not (isinstance(pair, ast.Tuple) and len(pair.elts) == 2):
            return None
        return "(" + segment(lines, pair.elts[0]) + ")"
    return copy_with_returns(fun, cut, "without its aux")


def copy_with_returns(fun, rewrite, what: str):
    """`fun` compiled again from its own text with each `return`'s value replaced by
    `rewrite(lines, value)` (the source lines, the value's ast node: the new text), in fun's
    namespace with its line numbers kept (a refusal names the user's line), or None when it
    cannot be made so (a lambda, a decorated function, no source, `rewrite` returning None
    for a return)."""
    if not isinstance(fun, types.FunctionType) or is_lambda(fun) \
            or hasattr(fun, "__srcad_transform__"):
        return None
    try:
        lines, first = function_lines(fun)
    except (OSError, TypeError):
        return None
    lines = textwrap.dedent("".join(lines)).splitlines()
    try:
        function = ast.parse("\n".join(lines)).body[0]
    except SyntaxError:
        return None
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return None
    returns = list(_own_returns(function.body))
    texts = {id(r): rewrite(lines, r.value) if r.value is not None else None for r in returns}
    if not returns or any(t is None for t in texts.values()):
        return None
    for r in sorted(returns, key=lambda r: (r.value.lineno, r.value.col_offset), reverse=True):
        _replace(lines, r.value, texts[id(r)])
    filename = f"{fun.__code__.co_filename} ({fun.__name__} {what})"
    text = "\n" * (first - 1) + "\n".join(lines) + "\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = dict(fun.__globals__)
    for name, cell in zip(fun.__code__.co_freevars, fun.__closure__ or ()):
        try:
            namespace[name] = cell.cell_contents
        except ValueError:  # an empty cell
            return None
    try:
        exec(compile(text, filename, "exec"), namespace)
    except Exception:  # noqa: BLE001 - the caller's other way serves instead
        return None
    copy = namespace[fun.__name__]
    copy.__defaults__, copy.__kwdefaults__ = fun.__defaults__, fun.__kwdefaults__
    return copy


def _replace(lines, node, text):
    """Replace the text of `node` by `text`, in place, keeping the line count."""
    start, end = node.lineno - 1, node.end_lineno - 1
    rest = lines[end][node.end_col_offset:]
    new = (lines[start][:node.col_offset] + text + rest).split("\n")
    lines[start:end + 1] = new + [""] * (end + 1 - start - len(new))


def segment(lines, node):
    """The source text of `node` (one line or several, joined)."""
    if node.lineno == node.end_lineno:
        return lines[node.lineno - 1][node.col_offset:node.end_col_offset]
    parts = [lines[node.lineno - 1][node.col_offset:]]
    parts += lines[node.lineno:node.end_lineno - 1]
    parts.append(lines[node.end_lineno - 1][:node.end_col_offset])
    return "\n".join(parts)


def _own_returns(stmts):
    """The return statements of a function body, not those of functions defined in it."""
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            yield stmt
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                   ast.Lambda)):
            for field in ("body", "orelse", "handlers", "finalbody"):
                yield from _own_returns(getattr(stmt, field, None) or [])
            for case in getattr(stmt, "cases", None) or []:
                yield from _own_returns(case.body)
