"""numba, loaded when the numba backend is first used: `import srcad` and the python backend
never import it (numba's import costs a quarter of a second, and more than half of srcad's).

Code that runs numba asks `numba_module()` for it when it compiles. The module is imported
by name, once (later calls find it in `sys.modules`); where numba is not installed the
numba backend is refused, saying how to install it.

>>> numba_module().njit is not None
True
"""

from __future__ import annotations

import importlib

from srcad.errors import SrcadError


def numba_module():
    """The numba module, imported on this first use; SrcadError where it is not installed."""
    try:
        return importlib.import_module("numba")
    except ImportError:
        raise SrcadError("the numba backend needs numba", construct="backend='numba'",
                         hint="pip install 'srcad[numba]'") from None
