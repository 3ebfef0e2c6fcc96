"""The rule families that need SciPy (scipy.special, scipy.linalg, scipy.stats): SciPy's
import costs as much as srcad's, so each family is imported the first time a lookup misses
once the user's code has imported that SciPy module (scipy.special: or asks for a math
function whose derivative needs it). `wanted(obj, add)` loads what is wanted, adding the
calls to the table with `add` (srcad/rules/table.py's `register`); the methods of
scipy.stats' distribution objects are kept here (`BOUND`).

The families are imported with importlib, not at the top: only when wanted (no SciPy: these
functions stay without rules).
"""

from __future__ import annotations

import importlib
import math
import sys

from srcad.rules import convolution
from srcad.rules.call_info import ANY, ELEMENTWISE, CallInfo
from srcad.rules.elementwise import operator


def wanted(obj, add) -> bool:
    """Load the SciPy families `obj` may belong to (`add(function, CallInfo)` adds a call to
    the table); was any loaded now?"""
    return _scipy_special_wanted(obj, add) | _scipy_linalg_wanted(add) \
        | _scipy_stats_wanted() | _scipy_signal_wanted(add)


# math functions whose derivative needs scipy.special
_NEEDS_SCIPY = {id(math.lgamma), id(math.gamma)}
_library_loaded: list = []


def _scipy_special_wanted(obj, add) -> bool:
    """Add scipy.special's family now if `obj` may be one of its; were they added?"""
    if _library_loaded or ("scipy.special" not in sys.modules and id(obj) not in _NEEDS_SCIPY):
        return False
    _library_loaded.append(True)
    try:  # imported here, not at the top: only when wanted
        special = importlib.import_module("srcad.rules.special")
    except ImportError:  # no SciPy: these functions stay without rules
        return False
    for entry in special.ENTRIES:  # numba: srcad/runtime/numba_special.py
        add(entry.function, CallInfo(entry.rule.name, entry.rule, "float",
                                     arrays=ELEMENTWISE, select=operator(entry.rule),
                                     numba_refusal="", refused_operands=entry.refused))
    for entry in special.PYTHON_ENTRIES:
        add(entry.function, CallInfo(entry.rule.name, entry.rule, "float",
                                     arrays=ELEMENTWISE, select=operator(entry.rule),
                                     numba_refusal=f"srcad differentiates `scipy.special."
                                     f"{entry.rule.name}` on the python backend only"))
    for entry in special.MATH_ENTRIES:
        add(entry.function, CallInfo(entry.rule.name, entry.rule, "float", numba_refusal=""))
    for fn, select, keywords, operand_keywords in special.SHAPED:  # numba: numba_special.py
        add(fn, CallInfo(fn.__name__, None, "float", select=select, keywords=keywords,
                         operand_keywords=operand_keywords, numba_refusal=""))
    return True


def _scipy_linalg_wanted(add) -> bool:
    """Add scipy.linalg's family now if the user's code has imported it; were they added?"""
    if _scipy_linalg_loaded or "scipy.linalg" not in sys.modules:
        return False
    _scipy_linalg_loaded.append(True)
    try:  # imported here, not at the top: only when wanted
        family = importlib.import_module("srcad.rules.scipy_linalg")
    except ImportError:
        return False
    for fn, select, keywords, count in family.SHAPED:
        add(fn, CallInfo(fn.__name__, None, "float", select=select, keywords=keywords,
                         operand_count=count, numba_refusal=family.numba_refusal(fn)))
    for fn in family.INTEGER_CALLS:  # lu_factor's pivots
        add(fn, CallInfo(fn.__name__, None, "integers", arrays=ANY))
    return True


_scipy_linalg_loaded: list = []
# the methods of scipy.stats' distribution objects, by (id(object), method name): each
# `scipy.stats.norm.logpdf` is a new bound method
BOUND: dict = {}


def _scipy_stats_wanted() -> bool:
    """Add scipy.stats' family now if the user's code has imported it; were they added?"""
    if BOUND or "scipy.stats" not in sys.modules:
        return False
    try:  # imported here, not at the top: only when wanted
        family = importlib.import_module("srcad.rules.stats")
    except ImportError:
        return False
    for obj, method, select, keywords, operand_keywords, refused in family.SHAPED:
        BOUND[id(obj), method] = (obj, CallInfo(
            method, None, "float", select=select, keywords=keywords,
            operand_keywords=operand_keywords, refused_operands=refused,
            numba_refusal=""))  # numba: srcad/runtime/numba_stats.py
    return True


_scipy_signal_loaded: list = []


def _scipy_signal_wanted(add) -> bool:
    """Add scipy.signal's convolutions now if the user's code has imported it; were they?"""
    if _scipy_signal_loaded or "scipy.signal" not in sys.modules:
        return False
    _scipy_signal_loaded.append(True)
    entries = convolution.scipy_entries(sys.modules["scipy.signal"])
    for fn, info in convolution.table_entries(CallInfo, entries):
        add(fn, info)
    return True
