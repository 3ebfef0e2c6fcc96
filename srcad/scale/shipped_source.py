"""A function defined in `__main__` (a script run as a program, a notebook or IPython cell)
sent to Dask workers as its source text, since a worker cannot import it by name.

`ShippedFunction.of(f)` gathers what f's text needs: the source of f and of each helper it
calls that is defined in `__main__` too (found by name, the way srcad reads helpers), the
modules those texts name (`math`, `np`: sent as module names and imported on the worker; `np`
also when only f's namespace binds it, as srcad's lowering of lists reads it there) and
any other global they read (a constant, a NumPy function: sent by value, pickled as Dask
pickles any task argument). On a worker, `resolve()` executes the texts once per process in a
fresh namespace, each under its own file name and at its own lines (the lines between left
blank), kept in `linecache` (srcad reads a function's source from there), and returns f: the
derivative is built from the text the user wrote, and a refusal raised on a worker names the
user's file and line. In the process that packed f (a cluster of threads, `processes=False`)
`resolve()` returns f itself and leaves `linecache` alone.

A lambda, a function defined inside another function, and a text that reads a global of
`__main__` that is neither a module, a function of `__main__` nor a value pickle can send
are refused, naming it.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import linecache
import pickle
import types
from dataclasses import dataclass, field

from srcad.errors import ArgumentError

# per process: token -> function; in the packing process, f itself (set by `of`)
_RESOLVED: dict[str, types.FunctionType] = {}


@dataclass(frozen=True)
class ShippedFunction:
    """f by its source text and those of its `__main__` helpers."""

    name: str
    sources: tuple[tuple[str, str, int, str], ...]  # (function name, file, first line, text)
    modules: tuple[tuple[str, str], ...]  # (global name, module name)
    values: tuple[tuple[str, object], ...] = field(compare=False)  # (global name, value)
    token: str = ""  # identifies the texts and values: the cache key of each process

    @classmethod
    def of(cls, f) -> ShippedFunction:
        """The shipment of `f`, defined at the top level of `__main__` (or of a namespace its
        module does not hold it in: a doctest, exec)."""
        sources, modules, values = {}, {}, {}
        _gather(f, sources, modules, values)
        # srcad's lowering of lists reads NumPy as `np` in f's namespace, named in f or not
        numpy = getattr(getattr(f, "__srcad_wrapped__", f), "__globals__", {}).get("np")
        if isinstance(numpy, types.ModuleType) and numpy.__name__ == "numpy":
            modules.setdefault("np", "numpy")
        sources = tuple((name, *where) for name, where in sources.items())
        values = tuple(sorted(values.items(), key=lambda item: item[0]))
        modules = tuple(sorted(modules.items()))
        token = hashlib.sha256(pickle.dumps((sources, modules, values))).hexdigest()
        shipment = cls(getattr(f, "__srcad_wrapped__", f).__name__, sources, modules, values,
                       token)
        _RESOLVED.setdefault(token, f)  # this process needs no rebuilding
        return shipment

    def resolve(self):
        """On a worker: f, made from its text (once per process)."""
        if self.token not in _RESOLVED:
            env = {"__name__": "__srcad_shipped__"}
            for alias, module in self.modules:
                env[alias] = __import__(module, fromlist=["_"])
            env.update(self.values)
            files: dict[str, list] = {}
            for _, filename, first_line, text in self.sources:
                files.setdefault(filename, []).append((first_line, text))
            for filename, pieces in files.items():
                _execute_at_lines(filename, sorted(pieces), env)
            _RESOLVED[self.token] = env[self.name]
        return _RESOLVED[self.token]


def _execute_at_lines(filename: str, pieces: list, env: dict) -> None:
    """Execute the texts of one file, each at its first line, the lines between blank."""
    lines: list[str] = []
    for first_line, text in pieces:
        lines += ["\n"] * (first_line - 1 - len(lines))
        lines += text.splitlines(True)
    source = "".join(lines)
    linecache.cache[filename] = (len(source), None, lines, filename)
    exec(compile(source, filename, "exec"), env)


def _refusal(f, why: str, hint: str) -> ArgumentError:
    return ArgumentError(f"srcad.dask sends {f.__name__!r}, defined in {f.__module__}, to the "
                         f"workers as its source, and {why}", construct="srcad.dask",
                         hint=hint)


def _gather(f, sources: dict, modules: dict, values: dict) -> None:
    """Add f's text to `sources`, then what the names it reads refer to (depth first)."""
    f = getattr(f, "__srcad_wrapped__", f)
    if f.__name__ == "<lambda>" or "<locals>" in f.__qualname__:
        raise _refusal(f, "a lambda or a function defined inside another has no text of its "
                       "own to define it there", "define it with `def` at the top level")
    try:
        lines, first_line = inspect.getsourcelines(f)
    except (OSError, TypeError) as exc:
        raise _refusal(f, f"its source is not available ({exc})",
                       "define it in a file, a notebook cell or IPython") from None
    source = "".join(lines)
    if source[:1].isspace():
        raise _refusal(f, "it is not defined at the top level of its file or cell",
                       "define it with `def` at the top level")
    sources[f.__name__] = (f.__code__.co_filename, max(first_line, 1), source)
    for name in sorted(_free_names(source) - {f.__name__}):
        if name in sources or name in modules or name in values or name not in f.__globals__:
            continue  # seen, a builtin or a local
        target = f.__globals__[name]
        if isinstance(target, types.ModuleType):
            modules[name] = target.__name__
        elif getattr(getattr(target, "__srcad_wrapped__", target), "__module__", None) == \
                f.__module__ and callable(target) and not isinstance(target, type):
            _gather(target, sources, modules, values)
        else:
            try:
                pickle.dumps(target)
            except Exception:  # noqa: BLE001 - any failure to pickle is a refusal
                raise _refusal(f, f"the global {name!r} it reads cannot be sent "
                               f"({type(target).__name__})", "pass it as an argument, or "
                               "define it in a module the workers import") from None
            values[name] = target


def _free_names(source: str) -> set[str]:
    """Every name the text reads (decorators included): the globals it may need."""
    return {node.id for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
