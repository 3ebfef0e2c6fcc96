"""No machine code of its own for a function numba compiles only to be linked into its callers.

numba compiles an overload's implementation (numba's own `np.zeros`, `np.empty`, `max`, ...;
srcad's fused loops and runtime overloads) into a library of its own: typed, lowered,
optimized, then handed to LLVM's JIT, which emits its machine code. Nothing runs that machine
code: Python never calls such a function (it has no CPython entry point), and every function
calling it links the library's optimized IR into its own module (numba/core/codegen.py,
`_get_module_for_linking`), where LLVM optimizes and emits it again, inlined or not. In the
first gradient of a Kalman filter about 0.6 s of CPU time, of an MLP about 1 s, went to the
machine code of such libraries.

`linked_only_without_machine_code()` makes numba finalize such a library (optimized, ready to
link) without adding its module to the JIT: a library that defines no CPython entry point
(`cpython.` wrapper) and a first-class-function wrapper (`cfunc.`: compiled by a dispatcher
for calls from compiled code only). Its module goes to the JIT the first time anything asks
for its machine code: the address of a function it defines (a function passed as a value),
or its object code (numba's disk cache). Its environment (the Python objects a dynamic
exception's message is built with), which numba sets at once in the library's own module, is
set instead in the module of the first caller that defines it, right after LLVM emits that
caller: a caller that links the library allocates the environment's global itself, where
before it shared the library's. Generated kernels (which have CPython entry points) are
compiled as before, so their machine code, their answers and numba's disk cache are the
same. Installed once when the numba backend's runtime loads (srcad/runtime/numba_runtime.py);
where numba's code library lacks these methods (another numba), nothing changes.
"""

from __future__ import annotations

import functools

from numba.core import codegen
from numba.core.compiler_lock import global_compiler_lock

_CPYTHON_WRAPPER = "_ZN7cpython"  # numba's fndesc.llvm_cpython_wrapper_name: mangled cpython::
_CFUNC_WRAPPER = "cfunc."  # numba's fndesc.llvm_cfunc_wrapper_name
_pending_environments: dict = {}  # environment global's name -> the environment to set there
_deferring = [False]  # set while numba finalizes a library whose module waits for a caller


def _linked_only(library) -> bool:
    names = [f.name for f in library._final_module.functions if not f.is_declaration]
    return (any(n.startswith(_CFUNC_WRAPPER) for n in names)
            and not any(n.startswith(_CPYTHON_WRAPPER) for n in names))


def _set_pending_environments(jit) -> None:
    for name in [n for n in _pending_environments if jit._engine.is_symbol_defined(n)]:
        jit.set_env(name, _pending_environments.pop(name))


def _to_jit(library) -> None:
    """Add a deferred library's module to the JIT and emit its machine code (under numba's
    compiler lock, as numba adds every other module)."""
    with global_compiler_lock:
        if getattr(library, "srcad_deferred", False):
            library.srcad_deferred = False
            library._codegen._add_module(library._final_module)
            library._finalize_specific()


def linked_only_without_machine_code() -> bool:
    """Install the deferral (module docstring); True where installed (now or before)."""
    library_class, jit_class = codegen.JITCodeLibrary, codegen.JITCPUCodegen
    names = ("_finalize_final_module", "_finalize_specific", "get_pointer_to_function",
             "_get_compiled_object")
    if not all(hasattr(library_class, n) for n in names) or not hasattr(jit_class, "set_env") \
            or not hasattr(jit_class, "_add_module"):
        return False
    if getattr(library_class._finalize_final_module, "srcad_linked_only", False):
        return True
    finalize_final, finalize_specific = (library_class._finalize_final_module,
                                         library_class._finalize_specific)
    pointer, compiled_object = (library_class.get_pointer_to_function,
                                library_class._get_compiled_object)
    add_module, set_env = jit_class._add_module, jit_class.set_env

    @functools.wraps(finalize_final)
    def _finalize_final_module(self):
        if not _linked_only(self):
            return finalize_final(self)
        _deferring[0] = True  # numba finalizes under its compiler lock: one library at a time
        try:
            self.srcad_deferred = True
            return finalize_final(self)
        finally:
            _deferring[0] = False

    @functools.wraps(add_module)
    def _add_module(self, module):
        if not _deferring[0]:
            return add_module(self, module)
        return None

    @functools.wraps(finalize_specific)
    def _finalize_specific(self):
        if _deferring[0]:
            return None
        finalize_specific(self)
        _set_pending_environments(self._codegen)
        return None

    @functools.wraps(pointer)
    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        if getattr(self, "srcad_deferred", False):
            if not any(f.name == name and not f.is_declaration
                       for f in self._final_module.functions):
                return 0  # as numba answers for a name the library does not define
            _to_jit(self)
        return pointer(self, name)

    @functools.wraps(compiled_object)
    def _get_compiled_object(self):
        _to_jit(self)
        return compiled_object(self)

    @functools.wraps(set_env)
    def set_env_when_defined(self, env_name, env):
        if self._engine.is_symbol_defined(env_name):
            return set_env(self, env_name, env)
        _pending_environments[env_name] = env  # set once a module defining it is emitted
        return None

    _finalize_final_module.srcad_linked_only = True
    library_class._finalize_final_module = _finalize_final_module
    library_class._finalize_specific = _finalize_specific
    library_class.get_pointer_to_function = get_pointer_to_function
    library_class._get_compiled_object = _get_compiled_object
    jit_class._add_module = _add_module
    jit_class.set_env = set_env_when_defined
    return True
