"""A lambda's source: the `lambda` expression of its file that Python compiled into it, as an
ordinary `def` for the rest of the pipeline.

Python keeps no text of a lambda of its own: `inspect` gives the statement around it, where
several lambdas may sit. srcad parses the file's text (once per version of it that
`linecache` holds), takes the lambdas that start on the code's first line and span every
instruction position of the code (`co_positions`: lines and columns), and compiles each in the
lambda's scope (srcad/frontend/source_check.py): the code object must equal the function's, so a
lambda is never matched to other text (another lambda on the line, a file edited since).
When lambdas nest, the innermost that compiles to the code is the one. Two lambdas that the
check cannot tell apart (the same text on one line, with Python run without column positions,
`-X no_debug_ranges`) are refused.

The lambda becomes `def <name>(<its parameters>): return <its body>`, named after the name it
is assigned to (`f = lambda x: ...`), else `lambda_at_line_<N>` (with `_column_<C>` when
another lambda starts on that line).

>>> square = lambda x: x * x  # noqa: E731
>>> found = find_lambda(square)
>>> found.tree.name, found.text
('square', 'lambda x: x * x')
"""

from __future__ import annotations

import ast
import inspect
import types
import weakref
from dataclasses import dataclass

import gast

from srcad.errors import SrcadError, StaleSourceError
from srcad.frontend import syntax as S
from srcad.frontend.source_check import check_source

# filename -> (the lines parsed, {line: [(lambda node, name)]}); a new text is parsed anew
_files: dict = {}
# code object -> (the lines it was found in, FoundLambda)
_found: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class FoundLambda:
    """A lambda's text as a function definition: `tree`'s line numbers count from 1 at
    `first_line`, its columns are the file's (`lines` are the file's lines it spans)."""

    tree: gast.FunctionDef
    first_line: int
    lines: list
    text: str  # the lambda as written (for messages)


def is_lambda(func) -> bool:
    return func.__code__.co_name == "<lambda>"


def function_name(func, default: str = "function") -> str:
    """func's name as generated code spells it: a lambda's is the name `find_lambda` gives it
    (`lambda` when its text cannot be read); `default` for an object with no name that is an
    identifier.

    >>> def f(x):
    ...     return x
    >>> function_name(f), function_name(lambda x: x)
    ('f', 'lambda_at_line_1')
    """
    name = getattr(func, "__name__", None)
    if isinstance(name, str) and name.isidentifier():
        return name
    if not (isinstance(func, types.FunctionType) and is_lambda(func)):
        return default
    try:
        return find_lambda(func).tree.name
    except (OSError, SrcadError):
        return "lambda"


def find_lambda(func) -> FoundLambda:
    """The text of the lambda `func`. Raises OSError when Python kept no text of it,
    StaleSourceError when the text does not compile to its code, SrcadError when two lambdas
    on its line are alike."""
    code = func.__code__
    lines, _ = inspect.findsource(func)  # of its code; module by __module__ (def_trees.py)
    known = _found.get(code)
    if known is not None and known[0] is lines:
        return known[1]
    candidates = _spanning(_lambdas_on(func, lines).get(code.co_firstlineno, []), code)
    matches = [(node, name) for node, name in candidates if _compiles(func, node, lines)]
    if not matches:
        where = code.co_filename.rsplit("/", 1)[-1]
        raise StaleSourceError(
            f"no lambda at line {code.co_firstlineno} of {where} compiles to the code of the "
            "lambda given: the file changed after the lambda was made",
            filename=code.co_filename, line=code.co_firstlineno, construct="lambda",
            hint="reload the module (importlib.reload) and use the lambda it makes")
    innermost = matches[0]
    for node, name in matches[1:]:
        if _inside(node, innermost[0]):
            innermost = (node, name)
        elif not _inside(innermost[0], node):
            raise SrcadError(
                "two lambdas on this line compile to the same code, and Python kept no "
                "columns to tell which one was passed", filename=code.co_filename,
                line=code.co_firstlineno, construct="lambda",
                hint="write the function with `def`, or run Python with column positions "
                "(without -X no_debug_ranges or PYTHONNODEBUGRANGES)")
    found = _as_function(*innermost, lines)
    _found[code] = (lines, found)
    return found


def _lambdas_on(func, lines) -> dict:
    """{line: [(lambda node, name)]} of the file's text `lines`, parsed once per text."""
    filename = func.__code__.co_filename
    known = _files.get(filename)
    if known is not None and known[0] is lines:
        return known[1]
    try:
        module = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        raise StaleSourceError(
            f"the text of {filename} is not valid Python, so srcad cannot read the lambda "
            f"at line {func.__code__.co_firstlineno} from it", filename=filename,
            line=func.__code__.co_firstlineno, construct="lambda",
            hint="write the function with `def`") from None
    assigned = {}  # id(lambda) -> the name it is assigned to
    for node in ast.walk(module):
        target = node.targets[0] if isinstance(node, ast.Assign) else \
            getattr(node, "target", None) if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Lambda):
            assigned[id(node.value)] = target.id
    by_line: dict = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Lambda):
            by_line.setdefault(node.lineno, []).append(node)
    index = {}
    for line, nodes in by_line.items():
        index[line] = [(node, assigned.get(id(node)) or f"lambda_at_line_{line}" + (
            f"_column_{node.col_offset + 1}" if len(nodes) > 1 else "")) for node in nodes]
    _files[filename] = (lines, index)
    return index


def _spanning(candidates: list, code) -> list:
    """The candidates whose text holds every instruction position of `code` (all of them
    when Python kept no columns)."""
    spans = [((line, col), (end_line, end_col)) for line, end_line, col, end_col
             in code.co_positions() if None not in (line, end_line, col, end_col)
             and (line, col) != (end_line, end_col)]
    return [(node, name) for node, name in candidates
            if all(_span(node)[0] <= start and end <= _span(node)[1] for start, end in spans)]


def _span(node) -> tuple:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _inside(inner, outer) -> bool:
    return _span(outer)[0] <= _span(inner)[0] and _span(inner)[1] <= _span(outer)[1]


def _segment(node, lines) -> list[str]:
    """The lines of `node`'s text; its first line's columns before it blanked (so every
    column stays the file's: ast columns count UTF-8 bytes)."""
    raw = [line.encode() for line in lines[node.lineno - 1:node.end_lineno]]
    raw[-1] = raw[-1][:node.end_col_offset]
    raw[0] = b" " * node.col_offset + raw[0][node.col_offset:]
    return [line.decode() for line in raw]


def _compiles(func, node, lines) -> bool:
    """Does the lambda `node`, compiled in func's scope at its place in the file, give
    func's code? (in brackets, on the line before it: a lambda continued over several lines
    needs them, and they move no column)"""
    text = _segment(node, lines)
    try:
        check_source(func, ["    (\n", *text[:-1], text[-1] + ")\n"], node.lineno - 1)
    except StaleSourceError:
        return False
    return True


def _as_function(node, name, lines) -> FoundLambda:
    """`def name(<node's parameters>): return <node's body>`, numbered from its line."""
    lam = gast.ast_to_gast(node)
    for sub in gast.walk(lam):
        if hasattr(sub, "lineno"):
            sub.lineno -= node.lineno - 1
            sub.end_lineno -= node.lineno - 1
    text = "".join(_segment(node, lines)).strip()
    return FoundLambda(S.lambda_as_def(lam, name, lam), node.lineno,
                       lines[node.lineno - 1:node.end_lineno], text)
