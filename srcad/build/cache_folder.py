"""The folder where the numba backend writes its generated modules and numba its machine code
(the rule lives in srcad/runtime/cache_folder.py, where the runtime's numba functions read it
too)."""

from srcad.runtime.cache_folder import cache_dir

__all__ = ["cache_dir"]
