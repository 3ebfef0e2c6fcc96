"""Stage 1: from a Python function object to a gast tree plus everything needed to resolve
its names (globals and closure) and to point errors at the user's file and line.
"""

from __future__ import annotations

import inspect
import textwrap
import types
from dataclasses import dataclass, field

import gast

from srcad.errors import SrcadError, UnsupportedSyntaxError
from srcad.source_check import check_source

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

    @property
    def name(self) -> str:
        return self.tree.name

    def line_of(self, node) -> int | None:
        lineno = getattr(node, "lineno", None)
        return None if lineno is None else self.first_line + lineno - 1

    def source_of(self, node) -> str:
        line = self.line_of(node)
        if line is None:
            return ""
        return self.source_lines[line - self.first_line].strip()

    def error(self, node, construct, message, hint=None, kind=UnsupportedSyntaxError):
        return kind(message, filename=self.filename, line=self.line_of(node) or self.first_line,
                    construct=construct, hint=hint)

    def resolve(self, name_: str):
        """The object a free name refers to, as at call time (closure first, then globals,
        then builtins). Raises KeyError when unbound."""
        if name_ in self.namespace:
            return self.namespace[name_]
        builtins_ = self.func.__globals__.get("__builtins__", __builtins__)
        if isinstance(builtins_, types.ModuleType):
            builtins_ = builtins_.__dict__
        return builtins_[name_]


def parse_function(func) -> ParsedFunction:
    """Parse a plain Python function.

    >>> def f(x):
    ...     return x * x
    >>> parse_function(f).tree.name
    'f'
    """
    # unwrap decorators, but not a transform (srcad.grad(f) wraps f and computes f's gradient:
    # differentiating f in its place would return a first derivative for a second one)
    func = inspect.unwrap(func, stop=lambda f: hasattr(f, "__srcad_transform__"))
    transform = getattr(func, "__srcad_transform__", None)
    if transform is not None:
        code = inspect.unwrap(func).__code__
        raise SrcadError(
            f"{func.__qualname__} is srcad.{transform} of a function; srcad differentiates "
            "source code, and a transformed function has none of its own",
            filename=code.co_filename, line=code.co_firstlineno, construct=transform,
            hint="for second derivatives, apply srcad.hessian, srcad.hvp or "
            "srcad.second_derivative to the function itself")
    if not isinstance(func, types.FunctionType):
        raise SrcadError(
            f"cannot differentiate {func!r}: srcad needs a Python function with source code",
            construct=type(func).__name__,
            hint="wrap the call in a plain `def` function; builtins, C functions and "
            "functools.partial objects have no Python source",
        )
    filename = func.__code__.co_filename
    if func.__name__ == "<lambda>":
        raise UnsupportedSyntaxError(
            "lambdas are not supported", filename=filename, line=func.__code__.co_firstlineno,
            construct="lambda", hint="write the function with `def`")
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
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise SrcadError(
            f"the source of {func.__qualname__} is not available ({exc})", filename=filename,
            line=func.__code__.co_firstlineno, construct="function",
            hint="define the function in a file, not at an interactive prompt",
        ) from None
    check_source(func, lines, first_line)  # the text is the code Python runs, or refused
    source = textwrap.dedent("".join(lines))
    module = gast.parse(source)
    tree = module.body[0]
    if not isinstance(tree, gast.FunctionDef):
        raise UnsupportedSyntaxError("expected a `def` function", filename=filename,
                                     line=first_line, construct=type(tree).__name__)
    tree.decorator_list = []
    # Decorators occupy the first lines; gast line numbers are relative to the dedented text.
    namespace = dict(func.__globals__)
    if func.__closure__:
        for cell_name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                namespace[cell_name] = cell.cell_contents
            except ValueError:  # empty cell
                pass
    return ParsedFunction(func, tree, filename, first_line, source.splitlines(), namespace)
