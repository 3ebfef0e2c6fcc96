"""numba's cache of srcad's own runtime functions (`@numba.njit(cache=True)` in
srcad/runtime/numba_*.py: `reserve_tape`, the product loops, ...) in srcad's cache folder.

numba's default keeps a module's cache beside the module, in `srcad/runtime/__pycache__`, so
an empty `SRCAD_CACHE_DIR` (or `srcad.build.cache.clear_disk()`) left those functions
compiled: a "cold" first call was not cold, and the source tree collected machine code. Once
`runtime_cache_in_srcad_folder()` has run (numba_runtime.py calls it, before numba reads any
of these functions' caches), their machine code goes to `<cache folder>/numba_runtime/`, one
subfolder per srcad installation; numba reads the folder when a module of them is imported.
With `NUMBA_CACHE_DIR` set, numba's own rule applies, as it does for the generated modules:
everything numba caches goes there.
"""

from __future__ import annotations

import os

from numba.core import caching, config

from srcad.runtime.cache_folder import cache_dir

_RUNTIME = os.path.dirname(os.path.abspath(__file__))
# the older names of numba's
_USER_PROVIDED = getattr(caching, "UserProvidedCacheLocator", None) \
    or caching._UserProvidedCacheLocator
_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl


class RuntimeCacheLocator(_USER_PROVIDED):
    """numba's locator of a cache folder chosen by the user, for the files of
    srcad/runtime/ only, with srcad's cache folder as the chosen one."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(cache_dir(), "numba_runtime",
                                        self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if config.CACHE_DIR or os.path.dirname(os.path.abspath(py_file)) != _RUNTIME:
            return None
        if not os.path.exists(py_file):
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:  # a folder no one may write: numba's next locator decides
            return None
        return locator


def runtime_cache_in_srcad_folder() -> None:
    """Look up srcad's runtime functions' caches in srcad's cache folder (once per process)."""
    if RuntimeCacheLocator not in _IMPL._locator_classes:
        _IMPL._locator_classes.insert(0, RuntimeCacheLocator)
