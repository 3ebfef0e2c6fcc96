"""scipy.stats distributions and the other library calls with new rules in whole-array
programs (`run.py --arrays --shapes stats`): each program gains one to three statements
applying `scipy.stats` log-densities, densities and cdfs (norm, t, gamma, beta, with shape
parameters by position, loc= and scale= by position or by name, parameters that carry a
derivative), `poisson.logpmf` in mu, `multivariate_normal.logpdf`, `np.average(weights=)`,
`np.linalg.lstsq`, `scipy.linalg.cho_factor`/`cho_solve`, `math.dist` and
`np.hsplit`/`np.vsplit` to arrays and floats in scope;
each result joins the floats the program returns.

Arguments are kept in each function's support by the form (`gamma` of `1.0 + e * e`, `beta` of
`0.5 + 0.4 * np.tanh(e)`, positive parameters `1.5 + a * a`). Drawn from its own random
stream (`random.Random("stats <seed>")`): without `stats` every seed keeps its program. The
numba backend compiles scipy.stats' methods (srcad/runtime/numba_stats.py) and np.average;
what it still refuses (np.linalg.lstsq, ...) must be refused with a SrcadError.
"""

from __future__ import annotations

import random

PRELUDE = "import scipy.linalg\nimport scipy.stats\n"

POSITIVE = "(1.5 + a * a)"
# (variate form of e, the parameters after it): {p} a positive parameter
DENSITIES = [
    ("scipy.stats.norm.{m}({0})", "{0}"),
    ("scipy.stats.norm.{m}({0}, a, {p})", "{0}"),
    ("scipy.stats.norm.{m}({0}, loc=a, scale={p})", "{0}"),
    ("scipy.stats.t.{m}({0}, {p})", "{0}"),
    ("scipy.stats.t.{m}({0}, 3.0, scale={p})", "{0}"),
    ("scipy.stats.gamma.{m}({0}, {p})", "1.0 + {0} * {0}"),
    ("scipy.stats.gamma.{m}({0}, 2.5, loc=-0.5, scale={p})", "1.0 + {0} * {0}"),
    ("scipy.stats.beta.{m}({0}, {p}, 2.0)", "0.5 + 0.4 * np.tanh({0})"),
    ("scipy.stats.beta.{m}({0}, 2.0, {p})", "0.5 + 0.4 * np.tanh({0})"),
]
METHODS = ["logpdf", "pdf", "logcdf", "cdf"]
# the cdf of t, gamma and beta has no derivative in a shape parameter: constants there
CONSTANT_SHAPES = {"scipy.stats.t.{m}({0}, {p})": "scipy.stats.t.{m}({0}, 4.0, loc=a)",
                   "scipy.stats.gamma.{m}({0}, {p})": "scipy.stats.gamma.{m}({0}, 2.0)",
                   "scipy.stats.beta.{m}({0}, {p}, 2.0)": "scipy.stats.beta.{m}({0}, 3.0, 2.0)",
                   "scipy.stats.beta.{m}({0}, 2.0, {p})": "scipy.stats.beta.{m}({0}, 2.0, 2.5)"}
OTHERS = ["np.sum(scipy.stats.poisson.logpmf(3.0, 1.0 + {0} * {0}))",
          "np.sum(scipy.stats.poisson.pmf(2.0, mu=1.0 + {0} * {0}))",
          "math.dist([a, {f}], [{f} * {f}, 1.0])",
          "np.sum(scipy.linalg.cho_solve(scipy.linalg.cho_factor(3.0 * np.eye(2) + np.outer("
          "np.array([np.cos({f}), a]), np.array([np.cos({f}), a]))), np.array([{f}, 0.5])))",
          "scipy.stats.multivariate_normal.logpdf(np.array([{f}, a]), np.array([0.1, -0.2]), "
          "2.0 * np.eye(2) + 0.3 * np.outer(np.array([1.0, np.cos({f})]), "
          "np.array([1.0, np.cos({f})])))",
          "np.sum(np.log(np.diag(scipy.linalg.cho_factor(2.0 * np.eye(2) + np.outer("
          "np.array([np.sin({f}), 1.0]), np.array([np.sin({f}), 1.0])), lower=True)[0])))"]


class StatsGrammar:
    def stats_statements(self) -> list:
        """Statements binding library results; each new local joins the result's floats."""
        rng = random.Random(f"stats {self.seed}")
        lines = []
        for _ in range(rng.randint(1, 3)):
            name = self.fresh("st")
            array, shape = rng.choice(sorted(self.arr_scope.items()))
            operand = rng.choice([array, f"{array} * a", f"np.sin({array})"])
            kind = rng.random()
            floated = f"np.sum({operand})"
            if kind < 0.55:
                form, variate = rng.choice(DENSITIES)
                method = rng.choice(METHODS)
                if "cdf" in method:
                    form = CONSTANT_SHAPES.get(form, form)
                call = form.format(f"({variate.format(operand)})", m=method, p=POSITIVE)
                lines.append(f"{name} = np.sum({call})")
            elif kind < 0.7:
                lines.append(f"{name} = {rng.choice(OTHERS).format(operand, f=floated)}")
            elif kind < 0.8 and len(shape) == 2:
                form = rng.choice(["np.average({0}, weights=1.0 + {0} * {0})",
                                   "np.sum(np.average({0}, 1, 1.0 + {0} * {0}))",
                                   "np.sum(np.average({0}, axis=0, weights=np.cos({0}) + 2.0,"
                                   " keepdims=True))"])
                lines.append(f"{name} = {form.format(operand)}")
            elif kind < 0.9 and len(shape) == 2 and shape[0] > shape[1]:
                rhs = f"np.cos(({operand})[:, 0])"
                lines.append(f"{name} = np.sum(np.linalg.lstsq({operand} + 2.0 * "
                             f"np.eye({shape[0]}, {shape[1]}), {rhs}, rcond=None)[0] ** 2)")
            elif len(shape) == 2 and shape[0] % 2 == 0 and shape[1] % 2 == 0:
                first, second = self.fresh("part"), self.fresh("part")
                split = rng.choice(["hsplit", "vsplit"])
                lines.append(f"{first}, {second} = np.{split}({operand}, 2)")
                lines.append(f"{name} = np.sum({first} * {second})")
            else:
                lines.append(f"{name} = {rng.choice(OTHERS).format(operand, f=floated)}")
            self.arr_floats.append(name)
        return lines
