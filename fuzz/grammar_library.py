"""Library calls and rules users add in whole-array programs (`run.py --arrays --shapes
library`): each program gains one to three statements applying `scipy.special` functions
(elementwise, `logsumexp`/`softmax`/`log_softmax` along an axis, `logsumexp(..., b=)`), the
`math` functions with new rules (`math.lgamma`, `math.log(x, base)`, `math.fsum([...])`) and
a function with a rule of its own (`srcad.custom_jvp`, defined in the program's module) to
arrays and floats in scope; each result joins the floats the program returns.

Arguments are kept in each function's domain by the form (`gammaln(1.0 + e * e)`,
`erfinv(0.9 * np.tanh(e))`), and no kink is near (`i0e` only of `1.0 + e * e`). Drawn from
its own random stream (`random.Random("library <seed>")`): without `library` every seed keeps
its program. On the numba backend the elementwise calls and the custom rule run compiled
(srcad/runtime/numba_special.py, numba_functions.py); logsumexp, softmax and log_softmax are
refused by name there.

`--shapes library-more` (a stream of its own, `random.Random("library more <seed>")`) adds one
or two statements of the rest of the family and of what the numba backend gained with it:
polygamma, loggamma, ndtri, erfcinv, i1e, gamma, beta, the reductions along an axis numba
lacks (`np.var(..., ddof=1)`, `np.prod`, `np.nanmax(..., keepdims=True)`, `np.ptp`, `np.std`),
math's functions numba lacks (`math.cbrt`, `math.remainder`, `math.prod`, `statistics.fmean`)
and a `srcad.custom_vjp` function.
"""

from __future__ import annotations

import random

# the module-level definitions the statements may call
PRELUDE = '''import scipy.special

import srcad


@srcad.custom_jvp
def softplus(x):
    return np.logaddexp(0.0, x)


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t * scipy.special.expit(x)
'''

ELEMENTWISE = ["scipy.special.gammaln(1.0 + {0} * {0})", "scipy.special.expit({0})",
               "scipy.special.erf({0})", "scipy.special.erfc({0})",
               "scipy.special.log_ndtr({0})", "scipy.special.ndtr({0})",
               "scipy.special.erfinv(0.9 * np.tanh({0}))", "scipy.special.i0e(1.0 + {0} * {0})",
               "scipy.special.digamma(1.5 + {0} * {0})",
               "scipy.special.xlogy({0}, 1.0 + {0} * {0})",
               "scipy.special.betaln(1.0 + {0} * {0}, 2.0)", "softplus({0})",
               "scipy.special.i1({0})", "scipy.special.logit(0.5 + 0.4 * np.tanh({0}))"]
SCALAR = ["math.lgamma(1.5 + {0} * {0})", "math.log(2.0 + {0} * {0}, 3.0)",
          "math.fsum([{0}, {0} * {0}, 0.5])", "math.gamma(1.0 + 0.5 * np.tanh({0}))",
          "softplus({0})"]


def _picked(grammar, rng) -> tuple:
    """(a fresh name, an array in scope, its shape, an operand made of it)."""
    name = grammar.fresh("lib")
    array, shape = rng.choice(sorted(grammar.arr_scope.items()))
    return name, array, shape, rng.choice([array, f"{array} * a", f"np.sin({array})"])


class LibraryGrammar:
    def library_statements(self) -> list:
        """Statements binding library results; each new local joins the result's terms."""
        rng = random.Random(f"library {self.seed}")
        lines = []
        for _ in range(rng.randint(1, 3)):
            name, array, shape, operand = _picked(self, rng)
            kind = rng.random()
            if kind < 0.5:
                lines.append(f"{name} = {rng.choice(ELEMENTWISE).format(operand)}")
                self.arr_scope[name] = shape
            elif kind < 0.75 and len(shape) == 2:
                axis = rng.choice([0, 1, -1])
                form = rng.choice(["scipy.special.logsumexp({0}, axis={1})",
                                   "scipy.special.softmax({0}, axis={1})",
                                   "scipy.special.log_softmax({0}, axis={1})",
                                   "scipy.special.logsumexp({0}, axis={1}, keepdims=True)"])
                lines.append(f"{name} = np.sum({form.format(operand, axis)} * {shape[0]}.5)")
                self.arr_floats.append(name)
            elif kind < 0.85:
                weights = f"1.0 + {array} * {array}"
                lines.append(f"{name} = scipy.special.logsumexp({operand}, b={weights})")
                self.arr_floats.append(name)
            else:
                lines.append(f"{name} = {rng.choice(SCALAR).format('a')}")
                self.arr_floats.append(name)
        return lines


# `library-more`: the module-level definitions its statements may call
MORE_PRELUDE = '''import statistics


@srcad.custom_vjp
def soft_square(x):
    return x * x + 0.1 * np.sin(x)


def soft_square_fwd(x):
    return soft_square(x), x


def soft_square_bwd(x, g):
    return (g * (2.0 * x + 0.1 * np.cos(x)),)


soft_square.defvjp(soft_square_fwd, soft_square_bwd)
'''
MORE_ELEMENTWISE = ["scipy.special.polygamma(1, 1.5 + {0} * {0})",
                    "scipy.special.loggamma(1.0 + {0} * {0})",
                    "scipy.special.ndtri(0.5 + 0.4 * np.tanh({0}))",
                    "scipy.special.erfcinv(1.0 + 0.8 * np.tanh({0}))",
                    "scipy.special.i1e({0})", "scipy.special.gamma(1.5 + np.tanh({0}))",
                    "scipy.special.beta(1.0 + {0} * {0}, 1.5)", "soft_square({0})"]
MORE_REDUCTIONS = ["np.var({0}, axis={1}, ddof=1)", "np.prod(1.0 + 0.2 * {0}, axis={1})",
                   "np.nanmax({0}, axis={1}, keepdims=True)", "np.ptp({0}, {1})",
                   "np.std({0}, axis={1})", "np.nanmean({0}, axis={1})"]
MORE_SCALAR = ["math.cbrt(1.0 + {0} * {0})", "math.remainder(3.0 * {0}, 1.3)",
               "math.prod([{0}, {0} + 1.0, 0.5])", "statistics.fmean([{0}, {0} * {0}])",
               "soft_square({0})"]


class LibraryMoreGrammar:
    def library_more_statements(self) -> list:
        """Statements of `library-more`; each new local joins the result's terms."""
        rng = random.Random(f"library more {self.seed}")
        lines = []
        for _ in range(rng.randint(1, 2)):
            name, _, shape, operand = _picked(self, rng)
            kind = rng.random()
            if kind < 0.45:
                lines.append(f"{name} = {rng.choice(MORE_ELEMENTWISE).format(operand)}")
                self.arr_scope[name] = shape
            elif kind < 0.8 and len(shape) >= 1:
                axis = rng.choice([0, -1] + ([1, (0, 1)] if len(shape) == 2 else []))
                form = rng.choice(MORE_REDUCTIONS).format(operand, axis)
                lines.append(f"{name} = np.sum({form} * 1.5)")
                self.arr_floats.append(name)
            else:
                lines.append(f"{name} = {rng.choice(MORE_SCALAR).format('a')}")
                self.arr_floats.append(name)
        return lines
