"""The folder where the numba backend writes its generated modules and numba its machine code
(srcad/build/cache_folder.py gives it to the build; srcad/runtime/numba_cache.py puts numba's
cache of srcad's own runtime functions there too). Imports nothing but the standard library:
the python backend reads it without numba."""

import os
from pathlib import Path


def cache_dir() -> Path:
    """Where numba-compiled modules live: $SRCAD_CACHE_DIR, else ~/.cache/srcad. Delete the
    folder (or call `srcad.build.cache.clear_disk()`) to clear it."""
    root = os.environ.get("SRCAD_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "srcad"
