"""LLVM's function simplification passes run once per function that srcad's generated code
compiles, in the module that links it, not also on each function before it is linked.

numba optimizes a function's LLVM IR twice on its way to machine code
(numba/core/codegen.py): as each IR module is added to a library (`_optimize_functions`:
LLVM's whole function simplification pipeline on every function: SROA, instcombine, GVN,
loop passes, ...), and again when the library is finalized (`_optimize_final_module`: LLVM's
module pipeline at numba's level, whose inliner runs that same function simplification
pipeline on every function of the module, callees first, then each caller with its callees
inlined). What is linked into a caller (an overload's implementation, a runtime helper) goes
through the module pipeline a third time there. The first run is the one nothing needs: the
module pipeline does its work again, on code it then inlines and optimizes further. In the
first gradient of a Kalman filter it took 0.76 s of CPU time (0.32 s of it the generated
kernel), in an MLP's 0.76 s (0.52 s of it srcad's fused loops).

`function_passes_at_link()` (a context manager, entered by srcad/build/numba_level.py while
numba compiles a generated kernel, under numba's compiler lock) makes every library numba
builds meanwhile (the kernel, its wrappers, the helpers and overload implementations compiled
for it) run only numba's reference-count pruning on each function as it is added, the one
function pass numba adds of its own, which the module pipeline runs again too. Everything
else numba compiles (the user's own numba code, srcad's runtime helpers called from Python)
is optimized as numba does. LLVM's passes keep a program's meaning, and the module pipeline
is the same, so the machine code computes the same values; where the generated code allows
LLVM to divide by multiplying with a reciprocal (`arcp`, srcad/build/numba_fastmath.py),
another order of the passes may use it in other places: results equal to rounding (within
an ulp or two per division). Where numba's code library lacks these methods (another numba),
nothing changes.
"""

from __future__ import annotations

import contextlib
import functools

_active = [0]  # depth of function_passes_at_link() in this process (under the compiler lock)


def _install() -> bool:
    """Wrap numba's `_optimize_functions` once; True where numba has what it wraps."""
    from numba.core import codegen

    library_class = codegen.CPUCodeLibrary
    if not hasattr(library_class, "_optimize_functions") or not hasattr(
            codegen, "_parse_refprune_flags"):
        return False
    optimize = library_class._optimize_functions
    if getattr(optimize, "srcad_at_link", False):
        return True

    @functools.wraps(optimize)
    def _optimize_functions(self, ll_module):
        if not _active[0]:
            return optimize(self, ll_module)
        return _reference_counts_pruned(self, ll_module)

    _optimize_functions.srcad_at_link = True
    library_class._optimize_functions = _optimize_functions
    return True


def _reference_counts_pruned(library, ll_module) -> None:
    """What numba's function passes do minus LLVM's pipeline: the data layout set and numba's
    reference-count pruning where numba enables it."""
    import llvmlite.binding as ll
    from numba.core import codegen, config

    ll_module.data_layout = library._codegen._data_layout
    if not config.LLVM_REFPRUNE_PASS:
        return  # numba prunes afterwards in Python (codegen.remove_redundant_nrt_refct)
    manager = ll.FunctionPassManager()
    manager.add_refprune_pass(codegen._parse_refprune_flags())
    builder = library._codegen._pass_builder()
    for function in ll_module.functions:
        if not function.is_declaration:
            manager.run(function, builder)


@contextlib.contextmanager
def function_passes_at_link():
    """While inside, numba's libraries skip LLVM's function pipeline before linking (module
    docstring); outside, or where numba differs, numba's own passes."""
    if not _install():
        yield
        return
    _active[0] += 1
    try:
        yield
    finally:
        _active[0] -= 1
