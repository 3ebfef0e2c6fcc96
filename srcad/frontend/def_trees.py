"""The `def` tree of a function's text, parsed once per code object while its file's text is
unchanged.

A helper inlined at several call sites is parsed at each one (the mixture's helpers, GradBench's
`sqnorm` eight times in one gmm build), and `inspect.getsourcelines` searches the loaded
modules each time. The text read is the one `linecache` holds for the file (after
`linecache.checkcache`, as `inspect` reads it): while that list of lines is the same object,
the code object's text is the same, and so is its tree; an edited file (its lines read again)
parses again. Every caller gets a tree of its own (a copy).

The text is found from the function (`function_lines`), not from its code object alone:
`inspect` finds a code object's module by searching every loaded module's file (a realpath
per module, some 30 ms the first time in a process, most of a small function's first build),
a function's by its `__module__`.
"""

from __future__ import annotations

import inspect
import linecache
import textwrap
import weakref

import gast

from srcad.errors import UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.source_check import check_source

# code object -> (the file's lines as linecache held them, (tree, first line, lines))
_parsed: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def def_tree(func, filename) -> tuple:
    """(the FunctionDef without decorators, its first line, its dedented lines); its text is
    the code Python runs, or refused.

    >>> def sq(x):
    ...     return x * x
    >>> def_tree(sq, sq.__code__.co_filename)[0].name
    'sq'
    """
    code = func.__code__
    file_lines = _file_lines(filename)
    kept = _parsed.get(code)
    if kept is not None and file_lines is not None and kept[0] is file_lines:
        tree, first_line, lines = kept[1]
        return S.clone(tree), first_line, list(lines)
    found, first_line = function_lines(func)
    lines, first_line = check_source(func, found, first_line)
    source = textwrap.dedent("".join(lines))
    tree = gast.parse(source).body[0]
    if isinstance(tree, gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError("async functions cannot be differentiated",
                                     filename=filename, line=first_line, construct="async def",
                                     hint="differentiate a plain synchronous function")
    if not isinstance(tree, gast.FunctionDef):
        raise UnsupportedSyntaxError("expected a `def` function", filename=filename,
                                     line=first_line, construct="function")
    # Decorators occupy the first lines; gast line numbers are relative to the dedented text.
    tree.decorator_list = []
    file_lines = _file_lines(filename)  # as inspect left them (it may have read the file)
    if lines is found and file_lines is not None:  # the file's text (not a reloaded copy)
        _parsed[code] = (file_lines, (S.clone(tree), first_line, source.splitlines()))
    return tree, first_line, source.splitlines()


def function_lines(func) -> tuple:
    """(the lines of `func`'s code, the first one's number), as `inspect.getsourcelines` of
    its code object gives them: not following `__wrapped__` (a wrapper is its own function),
    the module found by `func.__module__` rather than by searching every loaded module.
    Raises OSError or TypeError as `inspect` does when there is no text.

    >>> def sq(x):
    ...     return x * x
    >>> function_lines(sq)[0][0].strip()
    'def sq(x):'
    """
    lines, start = inspect.findsource(func)  # of func.__code__, with func's module
    return inspect.getblock(lines[start:]), start + 1


def _file_lines(filename):
    """The list of lines linecache holds for `filename` once checked against the file, or
    None."""
    linecache.checkcache(filename)
    entry = linecache.cache.get(filename)
    return entry[2] if entry is not None and len(entry) == 4 else None
