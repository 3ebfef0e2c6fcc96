"""Constant arguments of numba kernels: what generated code reads that numba cannot compile
into it, handed to the compiled kernel as leading arguments by a Python wrapper with the
generated function's own signature.

* A free name bound to a NumPy array (a closure's `data`, a module's array): passed as it is
  on every call, so the kernel reads its current elements; the code is rebuilt when the name
  is rebound (`Compiled.is_current`), as for numbers, which are embedded.
* A call of a function numba cannot compile (`scipy.special.gammaln(a)`, a library's Python
  function), when its arguments are the generated function's own arguments (never written in
  it), globals, constants and locals bound once, at the top level, to such values (`half = m /
  2`, read through its value): the wrapper computes it before the kernel runs, once per call
  (in a loop or a branch too: its arguments do not change there; in a branch it runs
  whether or not the branch does). Against numba's object mode (`with numba.objmode`, which
  also needs the result's type declared), benchmarks/numba_constant_calls.py measured a call
  of `scipy.special.gammaln` passed in at 0.36 us per kernel call (n = 10), in object mode
  once before the loop 0.70 us, in object mode where it stands in the loop 4.9 us (1.8 ms at
  n = 1000).
* Such a call on values the function computes (a local, a loop variable) cannot be computed
  before the kernel: refused, naming the call and what it depends on.

Calls numba compiles (the `math`, `cmath`, `random` and NumPy modules' functions, numba's own
compiled functions) stay in the kernel.
"""

from __future__ import annotations

import ast
import builtins
import cmath
import copy
import math
import random
import re
import statistics
import sys
import types

import numpy as np

from srcad.errors import SrcadError
from srcad.frontend.source_functions import compile_source
from srcad.runtime.runtime_names import (
    NUMBA_LINALG_FUNCTIONS,
    NUMBA_SIGNAL_FUNCTIONS,
    NUMBA_SPECIAL_FUNCTIONS,
    NUMBA_SPECIAL_REDUCTIONS,
    NUMBA_STATS_DISTRIBUTIONS,
)

_NUMBA_MODULES = ("math", "cmath", "random", "numpy")
_COMPILED_OBJECTS = {id(v) for m in (math, cmath, np, np.linalg, np.random, random)
                     for v in vars(m).values() if callable(v)}


def constant_arguments(source: str, name: str, namespace: dict, free_names: set,
                       provided, helper_names: set, origin: str = "", locate=None):
    """(kernel source, [(parameter, expression)], free names left) for generated `source`
    defining `name`: the parameters the kernel takes first and the Python expression the
    wrapper passes for each. `provided(name)`: a free name compiled code gets from srcad's
    runtime (never passed); `helper_names`: names the helper kernels read (arrays among them
    are not passed: the helpers cannot receive them, and are refused as before);
    `locate(callee)`: the user's line of a call of `callee`, for a refusal where no
    `# line N:` comment of the generated code names it."""
    tree = ast.parse(source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    params = [a.arg for a in fn.args.args]
    bound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
             and isinstance(n.ctx, (ast.Store, ast.Del))}
    written = bound | set(_written_bases(fn))
    invariant = ({p for p in params if p not in written}
                 | {n for n in free_names if n not in bound and not provided(n)})
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | set(params)
    known = _BUILTINS - bound
    definitions = _constant_locals(fn, invariant | known)
    leading: list = []
    edits: list = []  # (start, end, text): the calls, replaced in the text (comments stay)
    functions: set = set()  # names of the user's rule functions the kernel calls
    lines = source.splitlines()

    class Hoist(ast.NodeTransformer):
        def visit_Call(self, node):
            callee = _uncompiled_callee(node.func, namespace, free_names, bound, provided)
            if callee is None:
                return self.generic_visit(node)
            reads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            varying = sorted(reads - invariant - known - set(definitions))
            obj = _callee_object(node.func, namespace)
            if varying and (special_function(obj) or linalg_function(obj) or signal_function(obj)
                            or stats_distribution(getattr(obj, "__self__", None))
                            or user_compiled(callee, obj)):
                if user_compiled(callee, obj):
                    functions.add(callee.split(".")[0])
                return self.generic_visit(node)  # compiled by numba in the kernel
            if varying and getattr(obj, "srcad_numba_refusal", None):
                line, _ = comment_above(lines, node.lineno)
                raise SrcadError(obj.srcad_numba_refusal, filename=origin or None, line=line,
                                 construct="backend='numba'", hint="use backend='python'")
            if varying:
                line, statement = comment_above(lines, node.lineno)
                if line is None and locate is not None:
                    line = locate(callee)
                raise SrcadError(
                    f"`{ast.unparse(node)}` calls `{callee}`, which numba cannot compile, on "
                    f"{', '.join(f'`{v}`' for v in varying)}, computed inside the function"
                    f"{f' (in `{statement}`)' if statement else ''}; the numba backend runs "
                    "such a call before the compiled code only when its arguments are the "
                    "function's arguments, globals, constants and locals bound once to "
                    "those",
                    filename=origin or None, line=line, construct="backend='numba'",
                    hint="compute it outside the function and pass it in as an argument, or "
                    "use backend='python'")
            parameter = _fresh("srcad_constant", taken)
            leading.append((parameter, ast.unparse(_Substitute(definitions).visit(
                ast.parse(ast.unparse(node), mode="eval").body))))
            edits.append(((node.lineno, node.col_offset),
                          (node.end_lineno, node.end_col_offset), parameter))
            return node

    for stmt in fn.body:
        Hoist().visit(stmt)
    for free in sorted(free_names):
        if free not in bound and free not in helper_names and not provided(free) \
                and isinstance(namespace.get(free), np.ndarray):
            leading.append((free, free))
    for free in sorted(functions):  # a custom rule's functions, compiled by numba
        leading.append((free, f"srcad_numba_function({free})"))
    if not leading:
        return source, [], free_names
    for (line, col), (end_line, end_col), text in sorted(edits, reverse=True):
        first, last = lines[line - 1], lines[end_line - 1]
        lines[line - 1:end_line] = [first[:col] + text + last[end_col:]]
    header = f"def {name}("
    k = fn.lineno - 1
    at = lines[k].index(header) + len(header)
    lines[k] = lines[k][:at] + "".join(f"{p}, " for p, _ in leading) + lines[k][at:]
    kernel = "\n".join(lines) + "\n"
    tree = ast.parse(kernel)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load)}
    left = {n for n in free_names if n in loaded or n in helper_names} - {p for p, _ in leading}
    return kernel, leading, left


def kernel_wrapper(kernel, source: str, name: str, namespace: dict, leading: list,
                   origin: str):
    """A Python function with the signature of `name` in `source` that calls `kernel` with
    the `leading` values first (arrays as bound now, hoisted calls computed from the
    arguments), then its own arguments."""
    fn = next(n for n in ast.parse(source).body
              if isinstance(n, ast.FunctionDef) and n.name == name)
    call = f"srcad_kernel({', '.join([e for _, e in leading] + [a.arg for a in fn.args.args])})"
    fn.body = [ast.Return(ast.parse(call, mode="eval").body)]
    fn.decorator_list = []
    env = dict(namespace)
    env["srcad_kernel"] = kernel
    wrapper = compile_source(ast.unparse(ast.fix_missing_locations(fn)), name, env, origin)
    wrapper.py_func = wrapper  # what batched_lanes reads the namespace and origin from
    wrapper.srcad_origin = origin
    return wrapper


def comment_above(lines, lineno) -> tuple:
    """(line, statement) of the user's code named by the last `# line N: ...` comment at or
    above `lineno` (1-based) in generated `lines`, or (None, None)."""
    for k in range(min(lineno, len(lines)) - 1, -1, -1):
        comment = re.match(r"\s*# line (\d+): (.*)", lines[k])
        if comment:
            return int(comment.group(1)), comment.group(2).strip()
    return None, None


_BUILTINS = set(dir(builtins))


def _constant_locals(fn, invariant: set) -> dict:
    """{name: its value}: locals bound once in the function, at its top level, to an
    expression of invariant names and such locals (`half = m / 2`), which a call computed
    before the kernel reads through their values."""
    counts: dict = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
    definitions: dict = {}
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) \
                and counts.get(stmt.targets[0].id) == 1:
            reads = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
            if reads <= invariant | set(definitions):
                definitions[stmt.targets[0].id] = _Substitute(definitions).visit(
                    copy.deepcopy(stmt.value))
    return definitions


class _Substitute(ast.NodeTransformer):
    """An expression with the constant locals it reads replaced by their values."""

    def __init__(self, definitions):
        self.definitions = definitions

    def visit_Name(self, node):
        value = self.definitions.get(node.id)
        if value is None or not isinstance(node.ctx, ast.Load):
            return node
        return copy.deepcopy(value)


def _written_bases(fn):
    """Names whose elements the function writes (`c[i] = v`, `c[i] += v`) or may write (what
    a call made for its effect receives: `c.fill(v)`, `np.copyto(c, v)`)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and not (isinstance(node.value.func, ast.Name) and node.value.func.id == "print"):
            call = node.value
            for e in [call.func] + call.args + [k.value for k in call.keywords]:
                while isinstance(e, (ast.Subscript, ast.Attribute)):
                    e = e.value
                if isinstance(e, ast.Name):
                    yield e.id
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign) else []
        for target in targets:
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value
            if isinstance(target, ast.Name):
                yield target.id


def _callee_object(func, namespace):
    """The object `func` (a name or a dotted name of the namespace) stands for, or None."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in namespace:
        return None
    obj = namespace[func.id]
    for attr in reversed(parts):
        obj = getattr(obj, attr, None)
    return obj


def special_function(obj) -> str | None:
    """The name of the scipy.special function `obj` is when the numba backend compiles it
    (srcad/runtime/numba_special.py; statistics.fmean: srcad/runtime/numba_math.py), else
    None."""
    if obj is statistics.fmean:
        return "fmean"
    special = sys.modules.get("scipy.special")
    if special is None or obj is None:
        return None
    return next((n for n in NUMBA_SPECIAL_FUNCTIONS + NUMBA_SPECIAL_REDUCTIONS
                 if getattr(special, n, None) is obj), None)


def library_binding(free: str, value) -> list | None:
    """The header lines of a generated numba module that bind `free` to `value`, a SciPy
    module or a scipy.special function numba compiles (with srcad's implementations
    registered), or the statistics module or its fmean, or None."""
    if value is statistics or value is statistics.fmean:
        return ["import statistics", f"{free} = statistics"
                + (".fmean" if value is statistics.fmean else "")]
    name, linalg = special_function(value), linalg_function(value)
    distribution, signal = stats_distribution(value), signal_function(value)
    if isinstance(value, types.ModuleType) and value.__name__ in (
            "scipy", "scipy.special", "scipy.linalg", "scipy.stats", "scipy.signal"):
        target = value.__name__
    elif name is not None:
        target = f"scipy.special.{name}"
    elif linalg is not None:
        target = f"scipy.linalg.{linalg}"
    elif distribution is not None:
        target = f"scipy.stats.{distribution}"
    elif signal is not None:
        target = f"scipy.signal.{signal}"
    else:
        return None
    lines = ["import scipy.special", "import srcad.runtime.numba_special  # noqa: F401 "
             "(numba's scipy.special)"]
    if "scipy.linalg" in sys.modules:  # srcad/runtime/numba_linalg.py: numba's scipy.linalg
        lines += ["import scipy.linalg", "import srcad.runtime.numba_linalg  # noqa: F401"]
    if "scipy.stats" in sys.modules:  # srcad/runtime/numba_stats.py: numba's scipy.stats
        lines += ["import scipy.stats", "import srcad.runtime.numba_stats  # noqa: F401"]
    if "scipy.signal" in sys.modules:  # srcad/runtime/numba_convolution.py: its convolutions
        lines += ["import scipy.signal", "import srcad.runtime.numba_convolution  # noqa: F401"]
    return lines + [f"{free} = {target}"]


def _compiled_name(module: str, names, obj) -> str | None:
    """The name among `names` under which the SciPy module `module` (once imported) holds
    `obj`, else None."""
    library = sys.modules.get(module)
    if library is None or obj is None:
        return None
    return next((n for n in names if getattr(library, n, None) is obj), None)


def signal_function(obj) -> str | None:
    """The name of the scipy.signal function `obj` is when the numba backend compiles it
    (srcad/runtime/numba_convolution.py), else None."""
    return _compiled_name("scipy.signal", NUMBA_SIGNAL_FUNCTIONS, obj)


def stats_distribution(obj) -> str | None:
    """The name of the scipy.stats distribution object `obj` is when the numba backend
    compiles its methods (srcad/runtime/numba_stats.py), else None."""
    return _compiled_name("scipy.stats", NUMBA_STATS_DISTRIBUTIONS, obj)


def linalg_function(obj) -> str | None:
    """The name of the scipy.linalg function `obj` is when the numba backend compiles it
    (srcad/runtime/numba_linalg.py), else None."""
    return _compiled_name("scipy.linalg", NUMBA_LINALG_FUNCTIONS, obj)


def user_compiled(name: str, obj) -> bool:
    """Is `obj` (bound to `name`) a function of a derivative rule the user added, which numba
    compiles (srcad/runtime/numba_functions.py): a custom function or one of its rule
    functions, plain Python?"""
    fun = getattr(obj, "srcad_numba_function", None)
    if fun is None and name.startswith("srcad_rule_"):
        fun = obj
    return isinstance(fun, types.FunctionType)


def _uncompiled_callee(func, namespace, free_names, bound, provided) -> str | None:
    """The dotted name of a callee numba cannot compile (a function of a module other than
    math, cmath, random and NumPy's, or any other Python object), else None (what numba
    compiles, what srcad's runtime provides, a method of a local value)."""
    parts = []
    node = func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in free_names or node.id in bound \
            or provided(node.id) or node.id not in namespace:
        return None
    root = namespace[node.id]
    obj = root
    try:
        for attr in reversed(parts):
            obj = getattr(obj, attr)
    except AttributeError:
        return None
    if isinstance(root, types.ModuleType) and \
            root.__name__.split(".")[0] in _NUMBA_MODULES:
        return None
    if id(obj) in _COMPILED_OBJECTS or type(obj).__module__.startswith("numba"):
        return None
    if not callable(obj):
        return None
    return ".".join([node.id] + list(reversed(parts)))


def _fresh(base: str, taken: set) -> str:
    k = 0
    while f"{base}_{k}" in taken:
        k += 1
    taken.add(f"{base}_{k}")
    return f"{base}_{k}"
