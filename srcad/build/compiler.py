"""Stage: generated source -> a callable.

python backend: compiled in memory and registered with `linecache`, so tracebacks, `inspect`
and `pdb` show the generated code (and srcad can differentiate it again).
numba backend: written as a module into the cache folder and compiled by `numba.njit` with
numba's own on-disk cache, so a new process skips recompilation, and with the fast-math flags of
srcad/build/numba_fastmath.py (divisions may use reciprocals; sums may be reassociated where
`SRCAD_NUMBA_REASSOCIATE=1`)."""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import os
import sys
import threading
from pathlib import Path

import numpy as np

from srcad._version import __version__
from srcad.build import compile_notice
from srcad.build.cache_folder import cache_dir
from srcad.build.module_names import defined_in, free_in, helper_units
from srcad.build.numba_constants import (
    constant_arguments,
    kernel_wrapper,
    library_binding,
)
from srcad.build.numba_fastmath import FASTMATH, fastmath_flags
from srcad.build.numba_level import at_level, numba_level
from srcad.build.numba_lines import origin_comment
from srcad.errors import SrcadError
from srcad.runtime import LAYOUT
from srcad.runtime.runtime_names import (
    CHECKPOINT_NAMES,
    GENERATED_BUILTINS,
    MODULES,
    NUMBA_ARRAY_NAMES,
    NUMBA_BROADCAST_NAMES,
    NUMBA_CONVOLUTION_NAMES,
    NUMBA_DECOMPOSITION_NAMES,
    NUMBA_DIAGONAL_NAMES,
    NUMBA_EINSUM_NAMES,
    NUMBA_INTERP_NAMES,
    NUMBA_LAPACK_NAMES,
    NUMBA_LINALG_NAMES,
    NUMBA_LU_NAMES,
    NUMBA_MOVEMENT_NAMES,
    NUMBA_PADDING_NAMES,
    NUMBA_PRODUCT_NAMES,
    NUMBA_QUANTILE_NAMES,
    NUMBA_REORDER_NAMES,
    NUMBA_RUNTIME_NAMES,
    NUMBA_SCAN_NAMES,
    NUMBA_SELECTION_NAMES,
    NUMBA_SEMANTICS_NAMES,
    NUMBA_SPECTRAL_NAMES,
)
from srcad.transform.numba_fusion import FusedLoop
from srcad.transform.numba_reductions import reduction_of


def compile_numba(source: str, name: str, namespace: dict, free_names: set, origin: str = "",
                  helpers: str = "", locate=None, cache: bool = True):
    """Write `source` as a real module in the cache folder (numba's on-disk cache needs a file)
    and return `numba.njit(cache=True)` of its function `name`. `helpers`: source of functions
    it calls, each decorated `@srcad_jit` (jitted in the module with the same options) or
    `@srcad_inlined_jit` (the same, and compiled into each function calling it).
    What numba cannot compile into it is passed in by a wrapper (srcad/build/numba_constants.py;
    `locate(callee)`: the user's line of a call, for its refusal). `cache=False`: compiled in
    memory only (numba crashes loading cached code that calls a recursive function)."""
    try:
        import numba
    except ImportError:
        raise SrcadError("the numba backend needs numba", construct="backend='numba'",
                         hint="pip install 'srcad[numba]'") from None
    compile_notice.install()  # a slow first compilation says so, once
    level = numba_level()  # LLVM's -O level (srcad/build/numba_level.py)
    flags = fastmath_flags()  # srcad/build/numba_fastmath.py
    header = [*origin_comment(origin), *_runtime_imports(free_names, namespace)]

    # arrays and calls numba cannot compile, passed in by a wrapper (srcad/build/numba_constants.py)
    given = source
    if "srcad_rule_" in source or any(hasattr(namespace.get(n), "srcad_numba_function")
                                      for n in free_names):
        from srcad.runtime.numba_functions import compiled  # numba: imported only here

        namespace = {**namespace, "srcad_numba_function": compiled}
    original_free = free_names
    source, leading, free_names = constant_arguments(
        source, name, namespace, free_names, functools.partial(_provided, namespace=namespace),
        _loaded_names(helpers), origin, locate)
    # the helper kernels: modules of their own, shared by every function calling the same
    modules, imported = [], {}  # kernel, so numba compiles each once per process
    for names, body, needs in helper_units(helpers):
        free = original_free & free_in(body)
        lines = [*origin_comment(origin), *_runtime_imports(free, namespace), "import numba",
                 f"srcad_jit = numba.njit(cache={cache}, nogil=True, fastmath={set(flags)!r})"]
        if "@srcad_inlined_jit" in body:  # compiled into each caller (nested_numba.py)
            lines.append(f"srcad_inlined_jit = numba.njit(cache={cache}, nogil=True, "
                         f"fastmath={set(flags)!r}, inline='always')")
        lines += [f"from {imported[n]} import {n}" for n in needs]
        text = "\n".join(lines + ["", *_bound_globals(free, namespace, origin)]) \
            + "\n\n\n" + body
        path = _module_path("helpers", text, numba.__version__, level, flags)
        modules.append((path, text))
        imported.update({n: path.stem for n in names})
    header += [f"from {imported[n]} import {n}" for n in sorted(imported)]
    header.append("")
    header += _bound_globals(free_names - set(defined_in(helpers)), namespace, origin)
    text = "\n".join(header) + "\n\n\n" + source
    path = _module_path(name, text, numba.__version__, level, flags)
    with _modules_lock:  # threads compiling the same code share one module and one kernel
        kernel = _kernels.get(path)
        if kernel is None:
            for helper_path, helper_text in modules:  # imported by the modules after it
                _module(helper_path, helper_text)
            kernel = _kernels[path] = _kernel_of(_module(path, text), name, cache, level,
                                                         flags)
    return kernel_wrapper(kernel, given, name, namespace, leading, origin) if leading else kernel


def _runtime_imports(free_names: set, namespace: dict) -> list:
    """The header lines importing what generated code reading `free_names` calls of srcad's
    numba runtime (and the reducers and fused loop nests it names)."""
    header = ["import math", "import numpy as np", "",
              f"from srcad.runtime.numba_runtime import ({', '.join(sorted(NUMBA_RUNTIME_NAMES))})"]
    if "TapeOverBudget" in free_names:  # a loop over the tape budget (checkpoint_fallback.py)
        header.append("from srcad.runtime.checkpointing import TapeOverBudget")
    arrays = sorted(free_names & NUMBA_ARRAY_NAMES)
    reductions = {n: reduction_of(n) for n in sorted(free_names) if reduction_of(n)}
    if reductions:
        arrays.append("reducer")
    if arrays:
        header.append(f"from srcad.runtime.numba_arrays import {', '.join(arrays)}")
    semantics = sorted(free_names & NUMBA_SEMANTICS_NAMES)
    if semantics:
        header.append(f"from srcad.runtime.numba_semantics import {', '.join(semantics)}")
    for names, module in _RUNTIME_MODULES:
        if free_names & names:
            header.append(f"from srcad.runtime.{module} import "
                          f"{', '.join(sorted(free_names & names))}")
    header += [f"{n} = reducer{spec!r}" for n, spec in reductions.items()]
    fusions = {n: FusedLoop.of(namespace.get(n)) for n in sorted(free_names)
               if FusedLoop.of(namespace.get(n))}  # srcad/transform/numba_fusion.py
    if fusions:
        header.append("from srcad.runtime.numba_fusion import fused_kernel")
    return header + [f"{n} = {loop.definition()}" for n, loop in fusions.items()]


_RUNTIME_MODULES = ((NUMBA_MOVEMENT_NAMES, "numba_movement"),
                    (NUMBA_SELECTION_NAMES, "numba_selection"),
                    (NUMBA_DIAGONAL_NAMES, "numba_diagonals"),
                    (NUMBA_LINALG_NAMES, "numba_linalg"),
                    (NUMBA_LAPACK_NAMES, "numba_lapack"),
                    (NUMBA_SPECTRAL_NAMES, "numba_spectral"),
                    (NUMBA_QUANTILE_NAMES, "numba_quantiles"),
                    (NUMBA_EINSUM_NAMES, "numba_einsum"),
                    (NUMBA_PADDING_NAMES, "numba_padding"),
                    (NUMBA_PRODUCT_NAMES, "numba_products"),
                    (NUMBA_DECOMPOSITION_NAMES, "numba_decompositions"),
                    (NUMBA_SCAN_NAMES, "numba_scans"),
                    (NUMBA_REORDER_NAMES, "numba_reorder"),
                    (NUMBA_CONVOLUTION_NAMES, "numba_convolution"),
                    (NUMBA_LU_NAMES, "numba_lu"),
                    (NUMBA_BROADCAST_NAMES, "numba_broadcast"),
                    (NUMBA_INTERP_NAMES, "numba_interp"))


def _provided(n: str, namespace: dict) -> bool:
    """Is the free name `n` bound by the runtime header (not by f's namespace)?"""
    return n in MODULES or n in GENERATED_BUILTINS or n in NUMBA_ARRAY_NAMES \
        or n in NUMBA_SEMANTICS_NAMES or bool(reduction_of(n)) or n in NUMBA_RUNTIME_NAMES \
        or n in CHECKPOINT_NAMES or any(n in names for names, _ in _RUNTIME_MODULES) \
        or FusedLoop.of(namespace.get(n)) is not None


def _bound_globals(free_names: set, namespace: dict, origin: str) -> list:
    """The header lines binding the globals generated code reads: a constant's literal, a
    function of numpy or math, a compiled library function; anything else refused."""
    header = []
    for free in sorted(free_names):
        if _provided(free, namespace):
            continue
        value = namespace.get(free)
        module = _module_spelling(value)
        if (isinstance(value, (bool, int, float, str)) or value is None) \
                and not isinstance(value, np.ndarray):  # a constant leaf: its literal
            header.append(f"{free} = {value!r}")
        elif module:  # `from numpy import abs` (renamed `abs_1`), `from math import exp`
            header.append(f"{free} = {module}.{value.__name__}")
        elif library_binding(free, value):  # scipy.special, compiled
            header += library_binding(free, value)
        elif _helper_module(value):  # a kernel of srcad's helper modules (a nested gradient)
            header.append(f"from {_helper_module(value)} import {free}")
        else:
            raise SrcadError(f"the numba backend cannot embed the global `{free}` "
                             f"({type(value).__name__})", filename=origin,
                             construct="backend='numba'",
                             hint="pass it as an argument, or use backend='python'")
    return header


def _helper_module(value) -> str:
    """The name of the helper module srcad wrote and numba compiled `value` in (the
    kernels of nested gradients, imported by the code calling them), else ""."""
    module = getattr(getattr(value, "py_func", None), "__module__", "") or ""
    return module if module.startswith(module_file("helpers", "")[:-3]) else ""


def _module_path(name: str, text: str, numba_version: str, level: int,
                 flags: frozenset = FASTMATH) -> Path:
    """Where the module of `text` is written: named by its digest and the options numba's
    cache ignores (code it compiled from srcad's runtime modules: a module of another
    layout of srcad, its runtime imported from elsewhere, is never read; LLVM's level; the
    fast-math flags)."""
    options = (f"{numba_version} fastmath={sorted(flags)} nogil opt={level} "
               f"runtime={_runtime_digest()} layout={LAYOUT} srcad={__version__}")
    digest = hashlib.sha256((text + options).encode()).hexdigest()[:16]
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / module_file(name, digest)


# one module and one numba dispatcher per generated function and process: two dispatchers of
# one function (two threads compiling the same code) would fill one on-disk cache index at once
_modules_lock = threading.Lock()
_kernels: dict = {}


def _module(path: Path, text: str):
    if not path.exists():
        temporary = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        temporary.write_text(text)
        temporary.replace(path)
    module = sys.modules.get(path.stem)
    if module is None:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module  # numba's cache finds the module again by name
        spec.loader.exec_module(module)
    return module


def _kernel_of(module, name: str, cache: bool, level: int, flags: frozenset = FASTMATH):
    import numba
    from numba.core.registry import CPUDispatcher
    # nogil: srcad.scale.parallel runs chunks of rows on threads at once
    kernel = numba.njit(cache=cache, nogil=True, fastmath=set(flags))(getattr(module, name))
    for dispatcher in [kernel, *vars(module).values()]:  # with its srcad_jit helpers
        if isinstance(dispatcher, CPUDispatcher):
            _saved_when_possible(dispatcher)
            if dispatcher.py_func.__module__.startswith(f"srcad_l{LAYOUT}_"):
                # generated here (not srcad's runtime, shared by the modules of every level:
                # what it compiles on a kernel's behalf is at that kernel's level)
                at_level(dispatcher, level)
    return kernel


def _saved_when_possible(dispatcher) -> None:
    """Let `dispatcher` skip saving a compilation to numba's disk cache where numba cannot:
    an exception raised inside llvmlite's object-cache callback (a time limit's SIGALRM
    under load, a KeyboardInterrupt) is ignored there, the library never gets its object
    code, and numba's save after the compilation raised "no compiled object yet", though
    the compiled code was registered. The call goes on with the code compiled in memory;
    the next process compiles it again."""
    cache = getattr(dispatcher, "_cache", None)
    save = getattr(cache, "save_overload", None)
    if save is None or getattr(save, "srcad_tolerant", False):
        return

    def save_overload(sig, data):
        try:
            save(sig, data)
        except RuntimeError as err:
            if "no compiled object yet" not in str(err):
                raise
    save_overload.srcad_tolerant = True
    cache.save_overload = save_overload


def module_file(name: str, digest: str) -> str:
    """The file name of a generated numba module: the layout number, the function's name and
    the digest of its text and options.

    >>> module_file("f", "0123")
    'srcad_l2_f_0123.py'
    """
    return f"srcad_l{LAYOUT}_{name}_{digest}.py"


def _module_spelling(value) -> str | None:
    """`np` or `math` for a function of that module (numba compiles it), else None."""
    for spelled, module in MODULES.items():
        if callable(value) and getattr(module, getattr(value, "__name__", ""), None) is value:
            return spelled
    return None


def _loaded_names(text: str) -> set:
    if not text:
        return set()
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}


@functools.lru_cache(maxsize=None)
def _runtime_digest() -> str:
    """A hash of the runtime modules generated code calls into: a cached module compiled
    against an older runtime (inlined into it by numba) is never loaded with a newer one."""
    here = Path(__file__).parent.parent / "runtime"
    text = "".join((here / f).read_text() for f in ("numba_runtime.py", "numba_arrays.py",
                                                     "numba_semantics.py", "array_runtime.py",
                                                     "special_scalars.py", "numba_special.py",
                                                     "numba_math.py", "numba_statistics.py",
                                                     "numba_movement.py", "numba_selection.py",
                                                     "numba_diagonals.py",
                                                     "numba_linalg.py", "numba_spectral.py",
                                                     "numba_quantiles.py", "numba_einsum.py",
                                                     "numba_padding.py", "numba_products.py",
                                                     "numba_decompositions.py", "numba_expm.py",
                                                     "numba_scans.py", "numba_stats.py",
                                                     "stats_scalars.py", "numba_reorder.py",
                                                     "numba_convolution.py", "numba_lu.py",
                                                     "numba_sum_to.py", "numba_fusion.py",
                                                     "numba_contraction.py", "numba_gemm.py",
                                                     "numba_broadcast.py",
                                                     "numba_symbols.py"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
