"""The function a `srcad` command names (`path/to/module.py:func` or `package.module:func`),
loaded with every mistake told in one or two lines.

A mistake on the command line or in the user's file is a `UsageError` (exit status 2): the
first line says what went wrong and where (the user's file and line when there is one), the
optional second line how to fix it. Nothing here prints a traceback: a syntax error, a failed
import or an exception raised while the module runs is reported at its line in the user's
file; a method, a class or another object that is not a function is explained, not called.

`package.module:func` is imported with the current folder first on the import path, as
`python -m` does, so `srcad show mypackage.model:loss` works from the folder that holds
`mypackage/`.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import traceback
import types
from pathlib import Path

from srcad.build.cache_folder import cache_dir


class UsageError(Exception):
    """Bad input on the command line or in the user's file (exit status 2): `message`, then
    an optional `hint` on a line of its own."""

    def __init__(self, message: str, hint: str | None = None):
        self.message, self.hint = message, hint
        super().__init__(message if hint is None else f"{message}\n  {hint}")


def load_function(target: str):
    """`path/to/module.py:func` or `package.module:func` -> the function."""
    location, sep, name = target.rpartition(":")
    if not sep or not location or not name:
        raise UsageError(f"{target!r} names no function",
                         "write it as path/to/module.py:func or package.module:func")
    if location.endswith(".py") or "/" in location or "\\" in location:
        module = _load_file(location)
    else:
        module = _import(location)
    return _attribute(module, location, name)


def _load_file(location: str):
    path = Path(location).resolve()
    if not path.is_file():
        raise UsageError(f"{location}: no such file")
    module_name = "_cli_module_" + path.stem  # not srcad_*: the prefix of generated modules
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # inspect.getsource and pickling look it up here
    sys.path.insert(0, str(path.parent))  # the module may import its neighbours
    try:
        spec.loader.exec_module(module)
    except BaseException as err:
        sys.modules.pop(module_name, None)
        raise _module_error(err, location, module_name=None) from None
    finally:
        sys.path.remove(str(path.parent))
    return module


def _import(location: str):
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.insert(0, here)  # as `python -m` does: the current folder's packages
    try:
        return importlib.import_module(location)
    except BaseException as err:
        raise _module_error(err, location, module_name=location) from None


def _module_error(err: BaseException, location: str, module_name: str | None) -> UsageError:
    """The one- or two-line report of `err`, raised while loading the module at `location`."""
    if isinstance(err, KeyboardInterrupt):
        raise err
    if isinstance(err, SyntaxError):
        where = f"{_short(err.filename or location)}:{err.lineno or '?'}"
        if err.offset:
            where += f":{err.offset}"
        text = (err.text or "").strip()
        return UsageError(f"{where}: syntax error: {err.msg}", text or None)
    if isinstance(err, ModuleNotFoundError) and module_name is not None and err.name and (
            module_name == err.name or module_name.startswith(err.name + ".")):
        return UsageError(f"no module named {module_name!r} in the current folder "
                          f"({os.getcwd()}) or on the import path",
                          f"run srcad from the folder that holds {err.name.split('.')[0]}/, "
                          f"or give the file: {module_name.replace('.', '/')}.py:func")
    where = user_frame(err)
    prefix = f"{where}: " if where else f"{location}: "
    if isinstance(err, ImportError):
        return UsageError(f"{prefix}{err}",
                          "install it, or run srcad with the Python environment where the "
                          "module runs")
    if isinstance(err, SystemExit):
        return UsageError(f"{prefix}the module exits while it is imported (sys.exit)",
                          "put the script's work under `if __name__ == \"__main__\":`")
    return UsageError(f"{prefix}importing the module raised {type(err).__name__}: {err}")


def user_frame(err: BaseException) -> str | None:
    """`file:line` of the innermost frame of `err`'s traceback in the user's code: outside
    srcad, its generated code, Python's own modules and the installed packages (NumPy's
    internals are not where the user wrote the mistake)."""
    elsewhere = tuple({str(Path(__file__).resolve().parent), str(cache_dir()), sys.prefix,
                       sys.base_prefix, sys.exec_prefix})
    found = None
    for frame in traceback.extract_tb(err.__traceback__):
        name = frame.filename
        if not name.startswith("<") and not os.path.abspath(name).startswith(elsewhere):
            found = frame
    return None if found is None else f"{_short(found.filename)}:{found.lineno}"


def _short(filename: str) -> str:
    """`filename` relative to the current folder when it is under it."""
    try:
        return os.path.relpath(filename) if not os.path.relpath(filename).startswith("..") \
            else filename
    except ValueError:
        return filename


def _attribute(module, location: str, name: str):
    owner, function = module, module
    for part in name.split("."):
        if not hasattr(function, part):
            raise UsageError(f"{location} has no {name!r}")
        owner, function = function, getattr(function, part)
    _check_target(owner, function, name)
    return function


def _check_target(owner, function, name: str) -> None:
    """Refuse what srcad does not differentiate as a target, saying what it is."""
    if getattr(function, "__srcad_wrapped__", None) is not None:
        return  # a function decorated with @srcad.reverse / @srcad.forward
    if isinstance(function, types.MethodType) or (
            inspect.isclass(owner) and isinstance(function, types.FunctionType)
            and not isinstance(inspect.getattr_static(owner, name.split(".")[-1]),
                               staticmethod)):
        underlying = getattr(function, "__func__", function)
        raise UsageError(
            f"{_where(underlying)}{name} is a method: srcad differentiates functions of floats "
            "and arrays, not of an object (self)",
            f"write a module-level function that takes what it needs as arguments (e.g. def "
            f"{name.split('.')[-1]}(w, x)) and name that one")
    if inspect.isclass(function):
        raise UsageError(f"{name} is a class, not a function",
                         "name a function defined with def in the module (module.py:func)")
    if not isinstance(function, types.FunctionType):
        raise UsageError(f"{name} is a {type(function).__name__}, not a function defined with "
                         "def or lambda", "name a Python function of floats and arrays")


def _where(function) -> str:
    code = getattr(function, "__code__", None)
    return "" if code is None else f"{_short(code.co_filename)}:{code.co_firstlineno}: "


def check_arity(function, count: int, name: str) -> None:
    """Refuse an --args list whose length does not fit `function`'s parameters."""
    target = getattr(function, "__srcad_wrapped__", function)
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*range(count))
    except TypeError:
        params = [p.name for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        required = [p.name for p in signature.parameters.values()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                    and p.default is p.empty]
        takes = (f"{len(required)}" if len(required) == len(params)
                 else f"{len(required)} to {len(params)}")
        raise UsageError(
            f"{_where(target)}{name} takes {takes} argument{'s' if takes != '1' else ''} "
            f"({', '.join(params)}); --args "
            f"gives {count}", "give one --args entry per argument, e.g. --args "
            "\"Duplicated(array[5]), float\"") from None
