"""What generated code imports (numba) or is given (python) at run time.

`array_runtime` (python) and `numba_runtime`, `numba_arrays` (numba) are the functions
generated code calls besides NumPy; `checkpointing` the binomial schedule a checkpointed loop
runs and the memory budget; `runtime_names` the one list of the names generated code spells
bare. A numba module of generated code imports `srcad.runtime.<module>` by name, so that path
is part of every cached module: `LAYOUT`, below, is in every cache key and module name, and
goes up whenever the runtime's import path changes.

May import: only the shared vocabulary (`srcad.errors`), NumPy and numba; never another
package of srcad. Everything else may import it.
"""

# the layout of srcad's packages generated code imports from: 1 was the flat srcad/ (generated
# code imported `srcad.numba_runtime`), 2 the packages by stage (`srcad.runtime.numba_runtime`)
LAYOUT = 2
