"""The generated pages of the documentation site: the gallery (a function beside the
derivative code srcad generates for it) and the examples (each runnable example's docstring
and source). `mkdocs build` fills them in through scripts/mkdocs_hooks.py, so they always show
what the current srcad generates; tests/docs_examples/test_docs_site.py runs the generators.

    python scripts/docs_pages.py gallery     # print the gallery's generated markdown
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import math
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's srcad, also when run as a script

import srcad  # noqa: E402


def load_example(name: str):
    path = ROOT / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"srcad_docs_example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def f(x, y):
    return x * math.sin(y)


def sum_of_squares(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * x[i]
    return total


def clipped_norm(x, limit):
    s = 0.0
    for i in range(len(x)):
        if x[i] > limit:
            s += limit * limit
        else:
            s += x[i] * x[i]
    return math.sqrt(s)


def gallery_entries():
    """(title, what it shows, primal function, the generated code)."""
    mixture = load_example("mixture")
    logistic = load_example("logistic_regression")
    rnn = load_example("rnn")
    ode = load_example("ode_sensitivity")
    x3 = np.array([1.0, 2.0, 3.0])
    params, data = mixture.make_problem(5, 2)
    X, t = logistic.make_data(20, 3)
    hidden = 4
    W, U, b, v = np.eye(hidden), np.ones(hidden), np.zeros(hidden), np.ones(hidden)
    xs, targets = rnn.make_sequence(5)

    def dup(a):
        return srcad.Duplicated(a, np.zeros_like(a))

    return [
        ("A scalar function, reverse mode",
         "The adjoint of every intermediate is a local `*_bar`; each reverse block cites the "
         "line it undoes.",
         f, srcad.source(f, srcad.Reverse, srcad.Active(2.0), srcad.Active(0.5))),
        ("A scalar function, forward mode",
         "Each value is followed by its tangent `*_dot`.",
         f, srcad.source(f, srcad.Forward, srcad.Duplicated(2.0, 1.0), 0.5)),
        ("A loop over an array",
         "The derivative is added into the shadow array `x_bar`; nothing is taped, since the "
         "loop overwrites nothing the reverse sweep needs.",
         sum_of_squares, srcad.source(sum_of_squares, srcad.Reverse, dup(x3))),
        ("A branch inside a loop",
         "The reverse sweep runs the loop backwards and evaluates the condition again: `x` is "
         "never overwritten, so nothing needs taping.",
         clipped_norm, srcad.source(clipped_norm, srcad.Reverse, dup(x3), 2.0)),
        ("A helper function in a double loop (the Gaussian mixture)",
         "`normal_pdf` is inlined; one float per data point is taped.",
         mixture.mixture_loglikelihood,
         srcad.source(mixture.mixture_loglikelihood, srcad.Reverse, dup(params), data)),
        ("NumPy arrays: logistic regression",
         "Whole-array code gives whole-array derivative code, one line per operation.",
         logistic.loss,
         srcad.source(logistic.loss, srcad.Reverse, dup(np.zeros(3)), srcad.Active(0.0), X, t,
                      0.01)),
        ("A recurrent network, rebinding an array in a loop",
         "Each hidden state `h` is kept by reference for the reverse sweep.",
         rnn.sequence_loss,
         srcad.source(rnn.sequence_loss, srcad.Reverse, dup(W), dup(U), dup(b), dup(v), xs,
                      targets)),
        ("Vector forward mode, two lanes",
         "Two tangent directions in one call: each tangent statement is written once per lane.",
         ode.lotka_volterra,
         srcad.source(ode.lotka_volterra, srcad.Forward, srcad.BatchDuplicated(1.0, [1.0, 0.0]),
                      srcad.BatchDuplicated(2.0, [0.0, 1.0]), np.ones(4))),
    ]


def _fenced(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def gallery_markdown() -> str:
    """The gallery entries, each the function and its generated code side by side."""
    parts = []
    for title, note, function, generated in gallery_entries():
        primal = textwrap.dedent(inspect.getsource(function))
        parts.append(f"## {title}\n\n{note}\n\n<div class=\"grid\" markdown>\n\n"
                     f"{_fenced(primal)}\n\n{_fenced(generated)}\n\n</div>\n")
    return "\n".join(parts)


# the examples page opens with the examples that draw a figure and ends with the one that needs
# a Dask cluster; the others in between, by name
SHOWN_FIRST = ["lotka_volterra_fit", "optimizer_path", "jacobian_sparsity", "mixture"]
SHOWN_LAST = ["dask_mixture"]


def example_names() -> list[str]:
    names = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))
    middle = [n for n in names if n not in SHOWN_FIRST + SHOWN_LAST]
    return [n for n in SHOWN_FIRST if n in names] + middle + [n for n in SHOWN_LAST if n in names]


def examples_markdown() -> str:
    """Each example: its docstring as text, then its source."""
    parts = []
    for name in example_names():
        text = (ROOT / "examples" / f"{name}.py").read_text()
        docstring = ast.get_docstring(ast.parse(text)) or ""
        body = text.split('"""', 2)[2].lstrip("\n") if docstring else text
        parts.append(f"## {name}\n\n`examples/{name}.py`: {docstring}\n\n{_fenced(body)}\n")
    return "\n".join(parts)


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "gallery"
    print(gallery_markdown() if which == "gallery" else examples_markdown())
