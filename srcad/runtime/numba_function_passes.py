"""LLVM's function simplification pipeline runs on what srcad's generated code calls once, in
the module that links it, not also on each of its functions before it is linked.

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

`function_passes_at_link(kernel)` (a context manager, entered by srcad/build/numba_level.py
while numba compiles a generated kernel, under numba's compiler lock) makes every library
numba builds meanwhile for what the kernel calls (srcad's runtime helpers and fused loops,
numba's own overload implementations) run two passes on each function as it is added: SROA
(values out of their stack slots, so that the next pass sees them) and numba's
reference-count pruning (the one function pass numba adds of its own). The kernel's own
library keeps numba's whole function pipeline. With no pass at all on the helpers (the
pruning alone) the Kalman filter's gradient ran 2-4% slower, whether or not the kernel kept
its pipeline; with SROA first, within the 2-3% spread of separate builds and processes
(docs/numba_compile_changes.md has the numbers). Everything else numba compiles (the user's
own numba code, srcad's runtime helpers called from Python) is optimized as numba does.
LLVM's passes keep a program's meaning, so the machine code computes the same values; where the
generated code allows LLVM to divide by multiplying with a reciprocal (`arcp`,
srcad/build/numba_fastmath.py), another order of the passes may use it in other places:
results equal to rounding (the MLP's gradient moved by up to 2e-16 of its largest entry; the
Kalman filter's is the same bits). Where numba's code library lacks these methods (another
numba), nothing changes.
"""

from __future__ import annotations

import contextlib
import functools

_kernels: list = []  # the kernels function_passes_at_link() is compiling (under numba's lock)
_installed: list = []  # [True] once numba's method is wrapped (even if wrapped again since)


def _install() -> bool:
    """Wrap numba's `_optimize_functions` once; True where numba has what it wraps."""
    from numba.core import codegen

    library_class = codegen.CPUCodeLibrary
    if _installed:
        return _installed[0]
    _installed.append(hasattr(library_class, "_optimize_functions")
                      and hasattr(codegen, "_parse_refprune_flags"))
    if not _installed[0]:
        return False
    optimize = library_class._optimize_functions

    @functools.wraps(optimize)
    def _optimize_functions(self, ll_module):
        if not _kernels or self.name == _kernels[-1]:
            return optimize(self, ll_module)
        return _reference_counts_pruned(self, ll_module)

    library_class._optimize_functions = _optimize_functions
    return True


def _reference_counts_pruned(library, ll_module) -> None:
    """In place of numba's function passes: the data layout set, SROA and numba's
    reference-count pruning (where numba prunes in LLVM, its default)."""
    import llvmlite.binding as ll
    from numba.core import codegen, config

    ll_module.data_layout = library._codegen._data_layout
    manager = ll.FunctionPassManager()
    manager.add_sroa_pass()
    if config.LLVM_REFPRUNE_PASS:  # else numba prunes after this, in Python
        manager.add_refprune_pass(codegen._parse_refprune_flags())
    builder = library._codegen._pass_builder()
    for function in ll_module.functions:
        if not function.is_declaration:
            manager.run(function, builder)


@contextlib.contextmanager
def function_passes_at_link(kernel: str):
    """While inside, the libraries numba builds for the kernel named `kernel` (numba's name
    of its library: the function's `__qualname__`) skip LLVM's function pipeline before
    linking, the kernel's own library excepted (module docstring); outside, or where numba
    differs, numba's own passes."""
    if not _install():
        yield
        return
    _kernels.append(kernel)
    try:
        yield
    finally:
        _kernels.pop()
