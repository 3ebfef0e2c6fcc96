"""What generated code imports (numba) or is given (python) at run time.

`array_runtime` (python) and `numba_runtime`, `numba_arrays` (numba) are the functions
generated code calls besides NumPy; `checkpointing` the binomial schedule a checkpointed loop
runs and the memory budget; `runtime_names` the one list of the names generated code spells
bare. A numba module of generated code imports `srcad.runtime.<module>` by name.

May import: only the shared vocabulary (`srcad.errors`), NumPy and numba; never another
package of srcad. Everything else may import it.
"""
