"""The supported-functions page, docs/functions.md, generated from srcad's rule table: every
function srcad differentiates, in which modes, on which backends (each rule's numba
declaration), with which keywords, and what it gives where the function has no derivative
(srcad/rules/conventions.py). tests/docs_examples/test_coverage_page.py checks that the
committed page is current.

    python scripts/coverage_page.py          # rewrite docs/functions.md
    python scripts/coverage_page.py --check  # exit 1 if the page is not current
"""

from __future__ import annotations

import builtins
import math
import statistics
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import scipy.linalg
import scipy.signal
import scipy.special
import scipy.stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's srcad, also when run as a script

from srcad.rules import library_families, numpy_entries, table  # noqa: E402
from srcad.rules.conventions import CONVENTIONS  # noqa: E402

PAGE = ROOT / "docs" / "functions.md"
_NAMESPACES = [("", builtins), ("math.", math), ("statistics.", statistics), ("np.", np),
               ("np.linalg.", np.linalg), ("scipy.special.", scipy.special),
               ("scipy.linalg.", scipy.linalg), ("scipy.signal.", scipy.signal)]
_FAMILIES = [("Python: builtins, math, statistics", ("", "math.", "statistics.")),
             ("NumPy", ("np.",)), ("NumPy: linear algebra", ("np.linalg.",)),
             ("SciPy: scipy.special", ("scipy.special.",)),
             ("SciPy: scipy.linalg", ("scipy.linalg.",)), ("SciPy: scipy.stats", ("scipy.stats.",)),
             ("SciPy: scipy.signal", ("scipy.signal.",))]
# what the numba backend compiles of a function only in some forms (the others are refused by
# name where they are written)
_NUMBA_FORMS = {"np.cross": "compiled without `axisa=`, `axisb=`, `axisc=`, `axis=` (with "
                            "them: refused by name)",
                "np.linalg.norm": "compiled with a number `ord=` or none (`ord='fro'`, "
                                  "`'nuc'`, `axis=`, `keepdims=`: refused by name)"}
# math's functions of a sequence: of a list written out on numba (of an array: refused)
_NUMBA_FORMS.update({name: "compiled of a list written out (of an array: refused by name)"
                     for name in ("math.fsum", "math.prod", "math.dist", "statistics.fmean")})
# numba's np.linalg (and srcad's numba runtime) take one matrix: a stack of them is refused by
# name (scripts/library_probe.py's "batched" cases)
_NUMBA_FORMS.update({name: "compiled of one matrix (of a stack of them: refused by name)"
                     for name in ("np.matmul", "np.linalg.solve", "np.linalg.inv",
                                  "np.linalg.det", "np.linalg.slogdet", "np.linalg.cholesky",
                                  "np.linalg.pinv", "np.linalg.eigh", "np.linalg.eigvalsh",
                                  "np.linalg.matrix_power")})
_INTRO = """# Supported functions

This page is generated from srcad's rule table (`python scripts/coverage_page.py`; a test
checks that it is current): every library function srcad differentiates, in which modes, on
which backend, with which keywords (by position or by name, as the library defines them), and
what its derivative is where the function has none (JAX's answer). A call of a function that
is not on this page is refused, naming this page, when its argument carries a derivative; on
constants it runs as it is and needs no rule. Functions with no derivative (their results are
ints, bools or steps) are listed at the end.

Modes: reverse (`grad`, `gradient`, `jacrev`), forward (`jvp`, `jacfwd`) and vector (several
directions at once). Backend python: NumPy and SciPy as written; numba: compiled, or refused
by name where numba does not have the function. Array methods (`x.sum()`, `x.T`, `x @ y`)
are read as the NumPy functions they stand for. A few forms are written out into calls of
this page before differentiating (`np.split(x, 2)[1]`, `np.broadcast_arrays`, `np.r_`, `np.c_`:
[Supported NumPy functions](numpy_functions.md#written-out-before-differentiating)).
`python scripts/library_probe.py` differentiates a one-line program of each function of these
families in every mode against central differences and prints, per family, how many agree,
are refused (and why), are wrong or crash; `python scripts/new_user_programs.py` runs twelve
short programs of these functions (Black-Scholes, a Gaussian-process likelihood, maximum
likelihood fits, attention, ...) on both backends against JAX.
"""


def _registered():
    """{name as the user writes it: (its module's prefix, CallInfo)} of each function the
    table knows."""
    table.lookup_call(scipy.special.gammaln)  # the SciPy families are added on first use
    table.lookup_call(scipy.linalg.expm)
    table.lookup_call(scipy.stats.norm.logpdf)
    table.lookup_call(scipy.signal.convolve)
    found = {}
    for prefix, module in _NAMESPACES:
        for name in sorted(dir(module)):
            obj = getattr(module, name, None)
            if name.startswith("_") or not callable(obj) or (
                    module is statistics and getattr(obj, "__module__", "") != "statistics"):
                continue  # statistics.erf is math.erf
            info = table.lookup_call(obj) or table.lookup_listed(obj)
            if info is not None:
                found[prefix + name] = (prefix, info)
    bound = sorted(library_families.BOUND.items(), key=lambda i: str(i[0][1]))
    for (_, method), (obj, info) in bound:
        name = getattr(obj, "name", "multivariate_normal")
        found[f"scipy.stats.{name}.{method}"] = ("scipy.stats.", info)
    return dict(sorted(found.items()))


def _differentiable(info) -> bool:
    return info.rule is not None or info.select is not None or info.result == "other"


def _modes(info) -> str:
    return "reverse" if info.forward_refusal else "reverse, forward, vector"


def _numba(name, info) -> str:
    if name in _NUMBA_FORMS:
        return _NUMBA_FORMS[name]
    if callable(info.numba_refusal):  # by the argument count
        if not any(info.numba_refusal(count) for count in range(1, 9)):
            return "compiled"
        return "compiled for some argument counts, the others refused by name"
    if info.numba_refusal:
        return "refused by name"
    if name.startswith("np.") and not numpy_entries.numba_compiles(
            SimpleNamespace(info=info, keywords={})):
        return "refused by name"
    return "compiled"


def _convention(name, info) -> str:
    text = next((CONVENTIONS[k] for k in (name, name.rsplit(".", 1)[0]) if k in CONVENTIONS),
                "")
    refused = [f"`{k}`" for k, _ in info.refused_operands]
    if refused:  # scipy.stats' cdf in a shape parameter
        text += ("; " if text else "") + f"no derivative in {', '.join(refused)} (refused)"
    return text


def _row(name, info) -> str:
    keywords = ", ".join(f"`{k}`" for k in info.leading + info.keywords)
    return (f"| `{name}` | {_modes(info)} | python; numba: {_numba(name, info)} | "
            f"{keywords} | {_convention(name, info)} |")


def page() -> str:
    functions = _registered()
    lines = [_INTRO]
    for title, prefixes in _FAMILIES:
        rows = [_row(n, i) for n, (p, i) in functions.items() if p in prefixes
                and _differentiable(i)]
        if rows:
            lines += [f"## {title}", "", "| function | modes | backends | keywords | where it "
                      "has no derivative |", "|---|---|---|---|---|", *rows, ""]
    constants = [n for n, (_, i) in functions.items() if not _differentiable(i)]
    lines += ["## Known, with no derivative", "",
              "Their results carry no derivative whatever their arguments carry (ints, bools, "
              "shapes, steps, constructors of new arrays):", "",
              " ".join(f"`{n}`" for n in constants), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    text = page()
    if "--check" in sys.argv:
        sys.exit(0 if PAGE.read_text() == text else 1)
    PAGE.write_text(text)
