"""Stage 1: from a Python function object to a gast tree plus everything needed to resolve
its names (globals and closure) and to point errors at the user's file and line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import linecache
import threading
import types
from dataclasses import dataclass, field

import gast

from srcad.errors import SrcadError, UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.constant_sequences import PARSER, free_names_as_arrays
from srcad.frontend.def_trees import def_tree
from srcad.frontend.lambdas import find_lambda, is_lambda
from srcad.frontend.methods import bind_self, is_method
from srcad.frontend.spellings import Respell, respelled, words
from srcad.runtime.runtime_names import MODULES, rename_clashes

EMPTY_CELL = object()  # what an empty closure cell held when the function was parsed


@dataclass
class ParsedFunction:
    """A user function parsed once; `tree` is a FunctionDef with decorators removed."""

    func: types.FunctionType
    tree: gast.FunctionDef
    filename: str
    first_line: int  # absolute line number of the `def` line
    source_lines: list[str]
    namespace: dict = field(repr=False)  # closure cells over globals, as Python resolves them
    # names srcad gave to values the user spells otherwise (a container's leaf parameter
    # `params_w` is `params["w"]`): error messages say what the user wrote
    spellings: dict = field(default_factory=dict, repr=False)
    # names srcad bound to expressions the user wrote inline (`product = A @ x` for
    # `(A @ x)[0]`, `sum_of` for `sum(v for v in x)`) -> that expression: `spelled` quotes it
    expressions: dict = field(default_factory=dict, repr=False)
    written_as: str = ""  # a lambda's text, as the user wrote it (srcad/frontend/lambdas.py)
    # the user's names generated code uses for its own, renamed (srcad/runtime/runtime_names.py):
    # original -> new (`unbroadcast` -> `unbroadcast_1`); `spellings` holds them the other way
    renamed: dict = field(default_factory=dict, repr=False)
    # what the helpers inlined before the lists are lowered read (list_calls.py): (namespace,
    # name, object) and (cell, object), for the cache's checks like the function's own reads
    inlined_reads: list = field(default_factory=list, repr=False)
    # a helper's locals the inliner renamed (`rnn_hs`) -> the helper that spells them (`rnn`;
    # `spellings` holds `hs`): a message naming one says where
    helper_locals: dict = field(default_factory=dict, repr=False)
    # number tuples and lists among the free names, as the arrays the analysis reads them as
    # (srcad/frontend/constant_sequences.py); `namespace` keeps what the code reads at run time
    arrays: dict = field(default_factory=dict, repr=False)
    # the context managers the body ran inside (`np.errstate(...)`), as expressions; the
    # generated code runs inside them (srcad/transform/normalize/contexts.py)
    contexts: list = field(default_factory=list, repr=False)

    @property
    def generated(self) -> bool:
        """Is this srcad's own generated code (differentiated again for second order)?"""
        return self.filename.startswith("<srcad ")

    @property
    def name(self) -> str:
        return self.tree.name

    @property
    def title(self) -> str:
        """The function as generated code's docstrings name it: a lambda by its text."""
        if self.written_as:
            return f"`{' '.join(self.written_as.split())}` (line {self.first_line})"
        return f"`{self.name}`"

    def line_of(self, node) -> int | None:
        lineno = getattr(node, "lineno", None)
        return None if lineno is None else self.first_line + lineno - 1

    def source_of(self, node) -> str:
        line = self.line_of(node)
        if line is None:
            return ""
        return self.source_lines[line - self.first_line].strip()

    def spelled(self, node) -> str:
        """`node` as source, with each name srcad bound to an expression the user wrote
        inline put back as that expression (`product[0]` is `(A @ x)[0]`)."""
        return S.unparse_expr(Respell(self.expressions).visit(S.clone(node)))

    def in_user_words(self, message: str) -> str:
        """`message` with each name srcad made put back as what the user wrote: the
        expression it holds (`sum_of` is `sum(c * x for c in coeffs)`), or the user's name
        for it (`c_1` is the comprehension's `c`, `rnn_hs` the helper rnn's `hs`)."""
        if self.expressions:
            held = {n: self.spelled(S.name(n)) for n in words(message) & self.expressions.keys()}
            message = respelled(message, held) if held else message
        return respelled(message, self.spellings) if self.spellings else message

    def spell_inlined(self, mapping: dict, bound: dict, callee, helper: str) -> None:
        """Messages name the locals of the helper `callee` the inliner renamed (`rnn_hs`, in
        `mapping`) as the helper spells them, saying where; not the caller's own names it
        passed (`bound`: parameter -> argument)."""
        for local, fresh in mapping.items():
            if not (isinstance(bound.get(local), gast.Name) and bound[local].id == fresh):
                self.spellings[fresh] = callee.spellings.get(local, local)
                self.helper_locals[fresh] = callee.helper_locals.get(local, helper)

    def error(self, node, construct, message, hint=None, kind=UnsupportedSyntaxError):
        helper = next((self.helper_locals[w] for w in sorted(words(message))
                       if w in self.helper_locals), None)
        message = self.in_user_words(message)
        if self.renamed and hint:  # `Duplicated(reshaped, ...)`, as the user spells it
            hint = respelled(hint, {new: old for old, new in self.renamed.items()})
        column = getattr(node, "col_offset", None)
        line = self.line_of(node)
        if column is not None and line is not None:
            column += 1 + self._indent(line)
        context = None if helper is None or line is None else \
            f"in {helper}, called from {self.name} at line {line}"  # a helper's local
        error = kind(message, filename=self.filename, line=line or self.first_line,
                     construct=construct, hint=hint, column=column if line else None,
                     context=context)
        error.node = node
        return error

    def _indent(self, line: int) -> int:
        """Columns the dedent removed from the source line (gast counts from the dedent)."""
        try:
            raw = linecache.getline(self.filename, line)
        except Exception:  # noqa: BLE001 - a missing file only loses the column offset
            return 0
        text = self.source_lines[line - self.first_line] if \
            0 <= line - self.first_line < len(self.source_lines) else ""
        if not raw or not text.strip():
            return 0
        return max(0, (len(raw) - len(raw.lstrip())) - (len(text) - len(text.lstrip())))

    def resolve(self, name_: str):
        """The object a free name refers to, as at call time (closure first, then globals,
        then builtins). Raises KeyError when unbound."""
        if name_ in self.arrays:
            return self.arrays[name_]
        if name_ in self.namespace:
            return self.namespace[name_]
        builtins_ = self.func.__globals__.get("__builtins__", __builtins__)
        if isinstance(builtins_, types.ModuleType):
            builtins_ = builtins_.__dict__
        if name_ not in builtins_ and name_ in MODULES \
                and name_ not in self.func.__code__.co_names:
            return MODULES[name_]  # `np` of code srcad wrote (a lowered list's `np.empty`)
        return builtins_[name_]


_CELL_MAGICS = {"<timed exec>": "%%time", "<magic-timeit>": "%%timeit"}


def _no_source(func, filename, exc) -> SrcadError:
    """The refusal of a function whose text Python did not keep, saying where it came from.

    Python 3.13's interactive prompt, IPython and Jupyter keep what is typed (in `linecache`,
    as `<python-input-N>`, `<ipython-input-...>`), and srcad reads it from there; the older
    prompt, `python -c` and `exec` of a string keep nothing."""
    line = func.__code__.co_firstlineno
    if filename in _CELL_MAGICS:  # IPython compiles these cells' text under this name only
        return SrcadError(
            f"the source of {func.__name__} is not available: it was defined in a "
            f"`{_CELL_MAGICS[filename]}` cell, whose text IPython does not keep",
            filename=filename, line=line, construct="function",
            hint=f"define the function in a cell without `{_CELL_MAGICS[filename]}` and time "
            f"the call in another (`{_CELL_MAGICS[filename][1:]} srcad.grad(f)(x)`)")
    if filename.startswith("<") and filename.endswith(">"):
        return SrcadError(
            f"the source of {func.__qualname__} is not available: it was defined in "
            f"{filename} (an interactive prompt before Python 3.13, `python -c` or `exec` of "
            "a string), and Python keeps no text of it", filename=filename, line=line,
            construct="function", hint="define the function in a file and import it, or use "
            "Python 3.13's prompt, IPython or Jupyter, which keep what you type; for exec, "
            "register the text first: linecache.cache[name] = (len(text), None, "
            "text.splitlines(True), name), then exec(compile(text, name, 'exec'))")
    return SrcadError(f"the source of {func.__qualname__} is not available ({exc})",
                      filename=filename, line=line, construct="function",
                      hint="make the file that defines it readable (srcad reads the text)")


_BUILD = threading.local()  # .parsed: the functions parsed in the build under way, or None


@contextlib.contextmanager
def parsing_once():
    """Within (one build, nested ones included): `parse_function` parses each function once
    and hands every caller a copy of its own. A helper is parsed by the inliner, the list
    lowering and the recursion check, each time read, checked and renamed again (a third
    of a port's parse time in one build); between builds its globals may have changed, so
    nothing is kept."""
    outer = getattr(_BUILD, "parsed", None)
    if outer is None:
        _BUILD.parsed = {}
    try:
        yield
    finally:
        if outer is None:
            _BUILD.parsed = None


def parse_function(func) -> ParsedFunction:
    """`_parse_function(func)`, parsed once per build (`parsing_once`).

    >>> def f(x):
    ...     return x * x
    >>> with parsing_once():
    ...     first, second = parse_function(f), parse_function(f)
    >>> first.tree is not second.tree and S.same(first.tree, second.tree)
    True
    """
    memo = getattr(_BUILD, "parsed", None)
    if memo is None:
        return _parse_function(func)
    kept = memo.get(id(func))
    code = getattr(func, "__code__", None)
    if kept is None or kept[0] is not func or kept[1] is not code:
        kept = memo[id(func)] = (func, code, _parse_function(func))  # func kept: its id too
    return copy_parsed(kept[2])


def copy_parsed(parsed: ParsedFunction) -> ParsedFunction:
    """A copy a caller may change: the tree and every container the passes add to."""
    return dataclasses.replace(
        parsed, tree=S.clone(parsed.tree), source_lines=list(parsed.source_lines),
        namespace=dict(parsed.namespace), spellings=dict(parsed.spellings),
        expressions={k: S.clone(v) for k, v in parsed.expressions.items()},
        renamed=dict(parsed.renamed), inlined_reads=list(parsed.inlined_reads),
        helper_locals=dict(parsed.helper_locals), arrays=dict(parsed.arrays),
        contexts=S.clone(list(parsed.contexts)))


def _parse_function(func) -> ParsedFunction:
    """Parse a plain Python function.

    >>> def f(x):
    ...     return x * x
    >>> parse_function(f).tree.name
    'f'
    """
    # Only srcad's own decorators are unwrapped: they call the function unchanged. Any other
    # wrapper (functools.wraps sets `__wrapped__`) may compute something else (`2 * f(x)`),
    # so it is differentiated as itself, never as the function it wraps.
    func = getattr(func, "__srcad_wrapped__", func)
    if is_method(func):  # model.loss: the function's source, self's attributes constants
        parsed = _parse_function(func.__func__)
        parsed = dataclasses.replace(parsed, func=func, tree=S.clone(parsed.tree),
                                     namespace=dict(parsed.namespace),
                                     spellings=dict(parsed.spellings),
                                     inlined_reads=list(parsed.inlined_reads), contexts=[])
        bind_self(parsed, func)
        return parsed
    transform = getattr(func, "__srcad_transform__", None)
    if transform is not None:
        code = inspect.unwrap(func).__code__
        hint = ("compose the transforms instead (srcad.grad(srcad.grad(f)), "
                "srcad.jacfwd(srcad.grad(f))), or apply srcad.hessian, srcad.hvp or "
                "srcad.second_derivative to the function itself")
        if transform == "vmap":
            hint = ("differentiate inside the vmap: srcad.vmap(srcad.jacfwd(g), in_axes=...) "
                    "gives each example's derivative with respect to an unmapped argument")
        raise SrcadError(
            f"{func.__qualname__} is srcad.{transform} of a function; srcad differentiates "
            "source code, and a transformed function has none of its own",
            filename=code.co_filename, line=code.co_firstlineno, construct=transform,
            hint=hint)
    if not isinstance(func, types.FunctionType):
        wrapped = getattr(func, "__wrapped__", None)
        hint = ("wrap the call in a plain `def` function; builtins, C functions and "
                "functools.partial objects of them have no Python source")
        if isinstance(wrapped, types.FunctionType):  # @functools.lru_cache, @numba.njit, ...
            hint = (f"it is a decorator's wrapper of {wrapped.__qualname__}; if the decorator "
                    "does not change what the function computes, differentiate the "
                    f"undecorated function ({wrapped.__name__}.__wrapped__)")
        raise SrcadError(
            f"cannot differentiate {func!r}: srcad needs a Python function with source code",
            construct=type(func).__name__, hint=hint)
    filename = func.__code__.co_filename
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        raise UnsupportedSyntaxError(
            "async functions cannot be differentiated", filename=filename,
            line=func.__code__.co_firstlineno, construct="async def",
            hint="move the computation into a plain `def` function, differentiate that, and "
            "call it from the async code")
    if inspect.isgeneratorfunction(func):
        raise UnsupportedSyntaxError(
            "generators cannot be differentiated", filename=filename,
            line=func.__code__.co_firstlineno, construct="generator",
            hint="write a plain function that computes the values in a loop and returns "
            "the one to differentiate (or writes them into an Output array)")
    try:
        if is_lambda(func):  # its text found in the file, as a `def` (srcad/frontend/lambdas.py)
            found = find_lambda(func)
            tree, first_line, source_lines = S.clone(found.tree), found.first_line, found.lines
            written_as = found.text
        else:
            tree, first_line, source_lines = def_tree(func, filename)
            written_as = ""
    except (OSError, TypeError) as exc:
        raise _no_source(func, filename, exc) from None
    namespace = dict(func.__globals__)
    if func.__closure__:
        for cell_name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                namespace[cell_name] = cell.cell_contents
            except ValueError:  # empty cell
                pass
    parsed = ParsedFunction(func, tree, filename, first_line, source_lines, namespace,
                            written_as=written_as)
    free_names_as_arrays(parsed)  # COEFFS = (1.0, 2.0) read by index: an array to the analysis
    # before any pass adds a call of srcad's runtime: the user's names never mean its names
    parsed.renamed = rename_clashes(tree, namespace, parsed.resolve)
    parsed.spellings.update({new: old for old, new in parsed.renamed.items()})
    return parsed


def resolve_callee(parsed: ParsedFunction, func_expr, extra: dict):
    """The object a call's function expression names (a name, or an attribute of a module it
    names; `extra`: names bound besides the function's namespace), or None if it cannot be
    resolved."""
    if isinstance(func_expr, gast.Name):
        if func_expr.id in extra:
            return extra[func_expr.id]
        try:
            return parsed.resolve(func_expr.id)
        except KeyError:
            return None
    if isinstance(func_expr, gast.Attribute):
        base = resolve_callee(parsed, func_expr.value, extra)
        if isinstance(base, types.ModuleType) or library_object(base):
            return getattr(base, func_expr.attr, None)
        # `model.predict` of a module-level model: a bound method, inlined with self's
        # attributes as constants (methods.py)
        if base is not None and isinstance(_static_attribute(base, func_expr.attr),
                                           types.FunctionType):
            return getattr(base, func_expr.attr)
    return None


def _static_attribute(obj, attr):
    """`attr` as the class of `obj` defines it (no property or __getattr__ is run), or None."""
    if isinstance(obj, type):
        return None
    try:
        return inspect.getattr_static(type(obj), attr)
    except AttributeError:
        return None


def library_object(obj) -> bool:
    """A library's module-level object whose methods are called like functions
    (`scipy.stats.norm.logpdf`): its attributes resolve as a module's do."""
    return type(obj).__module__.startswith("scipy.stats.")


PARSER["parse_function"] = parse_function  # constant_sequences.py parses callees with it
