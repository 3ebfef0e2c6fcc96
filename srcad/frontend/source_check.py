"""The text srcad differentiates is the text Python compiled into the function it runs.

srcad reads a function's source from its file (through `inspect`, which reads `linecache`).
That text can be newer than the function object: the file was edited and saved and the module
not reloaded, or the module was reloaded while an old function object is still in use (then
the file, and linecache after its `checkcache`, hold the new text). linecache can also hold
text registered for a file name that no longer describes the code (an `exec`'d string
registered again under the same name).

`check_source` compiles the text in the scope the function was defined in (inside its class,
for private-name mangling; its closure variables as cells of an enclosing function; the
module's `__future__` flags) and compares the code object it gets with `func.__code__`.
Code objects compare bytecode (specialised instructions as their base form), constants,
names, argument counts, flags, the line and column table and nested code objects, and not
the file name or qualified name, in Python 3.11 to 3.13 alike. Decorators and default
values are evaluated outside the function's own code, so they never cause a false alarm.
IPython and Jupyter compile a cell one statement at a time (a function is compiled apart from
the imports of its own cell): code compiled that way is recognised too (`_imports_seen`).

A module whose asserts pytest rewrites is compiled the way pytest compiles it. Any other
import hook that rewrites code makes every function of the module look changed: srcad
refuses it rather than guess.

The check runs on a cache miss, not per call: one `parse` and `compile` of the function's
text (0.5 to 1 ms for the mixture example's function, 0.2 to 0.4 ms for its helper, against
20 to 40 ms for the whole first call); a code object already checked against the same text
(a helper inlined at several call sites) is not compiled again.
"""

from __future__ import annotations
import __future__

import ast
import linecache
import symtable
import sys
import textwrap
import types
import weakref

from srcad.errors import StaleSourceError

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

# code object -> the text it was checked against (a helper inlined at several call sites is
# parsed at each one; its code and text decide the answer, so one compile is enough)
_checked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def check_source(func: types.FunctionType, lines: list[str], first_line: int) -> tuple:
    """(lines, first_line) of the text Python compiled into `func.__code__`: `lines` (from
    `inspect.getsourcelines(func)`, starting at line `first_line` of the file) when they
    compile to it, the function's definition in its file when IPython's autoreload compiled
    it from there (`_reloaded_in_place`); else StaleSourceError.

    >>> import inspect
    >>> def sq(x):
    ...     return x * x
    >>> check_source(sq, *inspect.getsourcelines(sq))[1] > 0
    True
    """
    code = func.__code__
    checked = _checked.get(code)
    if checked is not None and checked[0] == (first_line, lines):
        return checked[1]
    module = _in_scope(func, lines, first_line)
    if module is not None and any(_compiles_to(func, module, imported)
                                  for imported in _imports_seen(func, module)):
        _checked[code] = ((first_line, list(lines)), (lines, first_line))
        return lines, first_line
    # (not kept: `lines` are not the text found, which a later edit may change)
    found = _reloaded_in_place(func)
    if found is None:
        raise _stale(func)
    return found


def _in_scope(func, lines, first_line):
    """An ast.Module holding the function's text inside its enclosing scopes, its lines
    numbered as in the file; None when the text is not one function definition or
    expression."""
    text = "".join(lines)
    indent = text[:len(text) - len(text.lstrip(" \t"))]
    parts = func.__qualname__.split(".")
    # the innermost enclosing class (private names are mangled with its name): a name
    # followed by anything but `<locals>` (`C.m`, `C.m.<locals>.g`, `f.<locals>.C.m`)
    classes = [i for i in range(len(parts) - 1)
               if parts[i].isidentifier() and parts[i + 1] != "<locals>"]
    at = classes[-1] if classes else -1
    owner = parts[at] if classes else None
    cells = [n for n in func.__code__.co_freevars if not (owner and n == "__class__")]
    # a function nested in a function (or a lambda in a comprehension) is flagged so
    below = any(p.startswith("<") for p in parts[at + 1:-1])  # below the class, if any
    above = owner is not None and any(p.startswith("<") for p in parts[:at])
    scope = f"def __srcad_scope__({', '.join(cells)}):"
    header = []  # the enclosing scopes, each indented one character deeper than the last
    if above or (cells and not below):
        header.append("def __srcad_outer__():" if owner and below else scope)
    if owner:
        header.append(f"class {owner}:")
    if below:
        header.append(scope)
    if indent and not header:
        header.append("if True:")
    if len(header) > len(indent):
        return None
    header = [indent[:depth] + line + "\n" for depth, line in enumerate(header)]
    try:
        module = ast.parse("".join(header) + text)
    except SyntaxError:
        return None
    node = module
    for _ in header:
        node = node.body[-1]
    if len(node.body) != 1 or not isinstance(node.body[0], (ast.FunctionDef, ast.Expr)):
        return None  # (an expression: a lambda's, srcad/frontend/lambdas.py)
    ast.increment_lineno(node.body[0], first_line - 1 - len(header))
    return _as_loaded(func, module, text)


def _imports_seen(func, module):
    """The sets of names the compiler may have seen imported when it compiled func, most
    likely first.

    CPython compiles `name.attr(...)` differently when the code it compiles imports `name`
    (one fact about the compiled text the function's own text does not show): guess it from
    the module's globals (a module object was imported), else read the module's own imports.
    IPython and Jupyter compile a cell one statement at a time, so a function defined in the
    cell that imports `name` was compiled with no import in view: the empty set. Either way
    the code computes the same thing; only the instruction that loads `name.attr` differs.
    """
    bases = {n.func.value.id for n in ast.walk(module) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)}
    in_globals = {b for b in bases if isinstance(func.__globals__.get(b), types.ModuleType)}
    yield in_globals
    in_text = bases & _module_imports(func) if bases else set()  # (reached only when needed)
    if in_text != in_globals:
        yield in_text
    if set() not in (in_globals, in_text):
        yield set()


def _compiles_to(func, module, imported) -> bool:
    """Does `module`, with `import name` for each of `imported`, compile to func's code?"""
    code = func.__code__
    if imported:
        place = {"lineno": 1, "col_offset": 0}
        imports = [ast.Import([ast.alias(name, **place)], **place) for name in sorted(imported)]
        module = ast.Module(imports + module.body, type_ignores=[])
    try:
        compiled = compile(module, code.co_filename, "exec", dont_inherit=True,
                           flags=code.co_flags & _FUTURE_FLAGS)
    except (SyntaxError, ValueError):
        return False
    return any(c == code for c in _code_objects(compiled) if c.co_name == code.co_name)


def _module_imports(func) -> set:
    """The names func's module binds by import statements, read from its text in linecache
    (empty when that text is not valid Python)."""
    filename = func.__code__.co_filename
    text = "".join(linecache.getlines(filename, func.__globals__))
    try:
        table = symtable.symtable(text, filename, "exec")
    except (SyntaxError, ValueError):
        return set()
    return {symbol.get_name() for symbol in table.get_symbols() if symbol.is_imported()}


def _as_loaded(func, module, text):
    """`module` transformed as the import hook that loaded func's module transforms it
    (pytest's assertion rewriting, with its default settings; no other hook is known)."""
    loaded = sys.modules.get(func.__module__)
    loader = getattr(loaded, "__loader__", None)
    if type(loader).__name__ != "AssertionRewritingHook" \
            or "PYTEST_DONT_REWRITE" in (getattr(loaded, "__doc__", None) or "") \
            or not any(isinstance(n, ast.Assert) for n in ast.walk(module)):
        return module
    from _pytest.assertion.rewrite import rewrite_asserts  # only reached under pytest

    rewrite_asserts(module, text.encode(), func.__code__.co_filename)
    return module


def _reloaded_in_place(func):
    """(lines, first_line) of func's definition in its file, when func's code is what
    IPython's autoreload (its default, `deduperreload`) compiles from that definition: it
    compiles `ast.unparse` of each edited function alone, from line 1, and gives the old
    function object that code, so the code's line numbers are not the file's; else None."""
    code = func.__code__
    filename = code.co_filename
    text = "".join(linecache.getlines(filename, func.__globals__))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    owner = func.__qualname__.split(".")[-2:-1]  # a method's class (autoreload rebuilds it)
    for node in _definitions(tree.body, code.co_name, owner):
        made = textwrap.dedent(ast.unparse(node))
        if owner:  # as autoreload compiles a method
            made = "class __autoreload_class__:\n" + textwrap.indent(made, "    ")
        try:
            compiled = compile(made, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        if any(c == code for c in _code_objects(compiled) if c.co_name == code.co_name):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            return linecache.getlines(filename)[first - 1:node.end_lineno], first
    return None


def _definitions(body, name, owner):
    """The module-level `def name` (owner empty) or the `def name` in module-level
    `class owner`."""
    for node in body:
        if owner and isinstance(node, ast.ClassDef) and node.name == owner[0]:
            yield from _definitions(node.body, name, [])
        elif not owner and isinstance(node, ast.FunctionDef) and node.name == name:
            yield node


def _code_objects(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _code_objects(const)


def _stale(func):
    code = func.__code__
    where = code.co_filename.rsplit("/", 1)[-1]
    return StaleSourceError(
        f"the source of {func.__name__} in {where} changed after {func.__name__} was "
        "defined: the text in the file is not the code Python runs",
        filename=code.co_filename, line=code.co_firstlineno, construct="function",
        hint="reload the module (importlib.reload) and use the function it defines; a "
        "function object kept from before a reload keeps running the old code")
