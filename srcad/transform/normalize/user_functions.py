"""Which calls srcad inlines: the user's own plain Python functions, as opposed to library
functions (NumPy's Python code, the standard library, site-packages), which are calls with a
rule or calls on constants."""

from __future__ import annotations

import functools
import os
import site
import sysconfig
import types

from srcad.frontend.methods import is_method
from srcad.rules import lookup_call
from srcad.transform.normalize.lower import LocalFunction


def is_user_function(obj, caller=None) -> bool:
    """Is `obj` a plain Python function of the user's own, to inline? A function of an
    installed package (NumPy's Python code, the standard library, site-packages) is a library
    call instead, however it is written, unless it belongs to the same top-level package as
    `caller`, the function being differentiated."""
    if isinstance(obj, LocalFunction):  # a nested def or lambda of the caller
        return True
    if isinstance(obj, functools.partial):
        return is_user_function(obj.func, caller)
    if is_method(obj):  # model.loss: its function inlined, self's attributes constants
        return is_user_function(obj.__func__, caller)
    if not isinstance(obj, types.FunctionType) or lookup_call(obj) is not None \
            or getattr(obj, "srcad_constant_block", False):  # constant_blocks.py: runs as is
        return False
    if not is_library_function(obj):
        return True
    package = _package(obj)
    return package is not None and package == _package(caller)


def is_library_function(obj) -> bool:
    """Is `obj` defined in an installed package or the standard library (by where its code
    lives: a user's own `random.py` or `test.py` is not the standard library's)?"""
    code = getattr(obj, "__code__", None)
    if code is None or code.co_filename.startswith("<frozen"):
        return code is not None
    filename = os.path.realpath(code.co_filename)
    return any(filename.startswith(root + os.sep) for root in _library_roots())


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple:
    """Folders that hold installed code: the standard library and site-packages."""
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    roots |= set(site.getsitepackages()) if hasattr(site, "getsitepackages") else set()
    return tuple(sorted({os.path.realpath(r) for r in roots if r}))


def _package(func):
    module = getattr(func, "__module__", None)
    return module.split(".")[0] if module and module != "__main__" else None
