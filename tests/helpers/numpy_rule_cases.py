"""Cases generated from the rule table's NumPy families (srcad/rules/numpy_entries.py), as
autograd's combo_check does: every float ufunc x operand shapes that broadcast, every
reduction and scan x its keyword combinations (axis int, negative, tuple, keepdims, ddof,
n, ord ...). tests/rules/test_numpy_rules.py checks each in every mode against central finite
differences; a family entry without cases here fails `test_every_entry_has_cases`."""

import itertools
import linecache

import numpy as np

_counter = itertools.count()

# operand domains of each ufunc (random points inside, away from where it has no derivative)
UFUNC_DOMAINS = {
    "exp2": [(-2, 2)], "log2": [(0.2, 3)], "log10": [(0.2, 3)], "cbrt": [(0.3, 3)],
    "reciprocal": [(0.5, 2)], "positive": [(-2, 2)], "arcsinh": [(-2, 2)],
    "arccosh": [(1.2, 3)], "arctanh": [(-0.8, 0.8)], "sinc": [(-2, 2)], "deg2rad": [(-2, 2)],
    "radians": [(-2, 2)], "rad2deg": [(-2, 2)], "degrees": [(-2, 2)],
    "logaddexp2": [(-2, 2), (-2, 2)], "float_power": [(0.5, 2), (-1.5, 1.5)],
    "fmax": [(-2, 2), (-2, 2)], "fmin": [(-2, 2), (-2, 2)], "mod": [(-3, 3), (0.7, 1.9)],
    "remainder": [(-3, 3), (-1.9, -0.7)], "fmod": [(-3, 3), (0.7, 1.9)],
    "copysign": [(-2, 2), (-2, 2)], "heaviside": [(-2, 2), (0.2, 0.8)],
}
# the ufuncs without derivative: x * f(x) checks that f contributes nothing
STEP_FUNCTIONS = ["floor", "ceil", "trunc", "rint", "round", "around", "fix", "sign"]
SHAPES = {1: [(), (3,), (2, 3)], 2: [((), ()), ((3,), ()), ((2, 3), (3,)), ((2, 1), (1, 3))]}

# each reduction and scan: the calls checked (x0: a (2, 3, 4) array of distinct values, or
# the shape given after the call text)
REDUCTION_CALLS = {
    "prod": ["np.prod(x0)", "np.prod(x0, axis=1)", "np.prod(x0, -1, keepdims=True)",
             "np.prod(x0, (0, 2))", "x0.prod(axis=0, keepdims=True)"],
    "var": ["np.var(x0)", "np.var(x0, axis=1, ddof=1)", "np.var(x0, (0, -1), None, None, 1)",
            "np.var(x0, axis=-2, keepdims=True)", "x0.var(0, ddof=1)"],
    "std": ["np.std(x0)", "np.std(x0, axis=2, ddof=1, keepdims=True)",
            "x0.std(axis=(1, 2), ddof=1)"],
    "ptp": ["np.ptp(x0)", "np.ptp(x0, axis=1)", "np.ptp(x0, -1, keepdims=True)"],
    "nansum": ["np.nansum(x0)", "np.nansum(x0, axis=(0, 1))"],
    "nanmean": ["np.nanmean(x0)", "np.nanmean(x0, axis=1, keepdims=True)"],
    "nanmax": ["np.nanmax(x0)", "np.nanmax(x0, axis=0)"],
    "nanmin": ["np.nanmin(x0)", "np.nanmin(x0, -1, keepdims=True)"],
    "average": ["np.average(x0)", "np.average(x0, axis=(0, 2))", "np.average(x0, 1)"],
    "median": ["np.median(x0)", "np.median(x0, axis=1)", "np.median(x0, -1, keepdims=True)"],
    "quantile": ["np.quantile(x0, 0.3)", "np.quantile(x0, 0.75, axis=0)",
                 "np.quantile(x0, q=0.2, axis=-1, keepdims=True)", "np.quantile(x0, q=(0.2, 0.9))"],
    "percentile": ["np.percentile(x0, 30.0)", "np.percentile(x0, 90, 1)",
                   "np.percentile(x0, [25.0, 75.0], axis=1)"],
    "cumsum": ["np.cumsum(x0, axis=0)", "np.cumsum(x0, -1)", "np.cumsum(x0[0, 0])",
               "np.cumsum(x0)", "x0[0].cumsum()"],
    "cumprod": ["np.cumprod(x0[1, 2])", "x0[0, 1].cumprod()", "np.cumprod(x0[0])"],
    "diff": ["np.diff(x0)", "np.diff(x0, 2)", "np.diff(x0, n=1, axis=0)",
             "np.diff(x0, 3, axis=-2)"],
    "trapezoid": ["np.trapezoid(x0)", "np.trapezoid(x0, dx=0.5, axis=1)",
                  "np.trapezoid(x0, None, 2.0, 0)"],
    "gradient": ["np.gradient(x0[1, 1])", "np.gradient(x0, axis=-2)"],
    "norm": ["np.linalg.norm(x0[0, 0], 1)", "np.linalg.norm(x0[0, 0], np.inf)",
             "np.linalg.norm(x0[0, 0], -np.inf)", "np.linalg.norm(x0[0, 0], ord=3)",
             "np.linalg.norm(x0[0, 0], 0.5)", "np.linalg.norm(x0[0], 'fro')",
             "np.linalg.norm(x0[0], 'nuc')", "np.linalg.norm(x0[0], 1)",
             "np.linalg.norm(x0[0], 2)", "np.linalg.norm(x0[0], np.inf)",
             "np.linalg.norm(x0[0], -np.inf)", "np.linalg.norm(x0, axis=1)",
             "np.linalg.norm(x0, 1, axis=-1, keepdims=True)",
             "np.linalg.norm(x0, ord=np.inf, axis=0)", "np.linalg.norm(x0[0], axis=(0, 1))",
             "np.linalg.norm(x0, axis=(1, 2))", "np.linalg.norm(x0, 'fro', (0, 2), True)"],
}


def function_of(call: str, arity: int):
    """`def probe(x0, ...): return np.sum(<call> * WEIGHT)`, with source srcad reads
    (linecache); WEIGHT varies per element where the result is an array."""
    xs = ", ".join(f"x{k}" for k in range(arity))
    filename = f"<numpy rule case {next(_counter)}>"
    text = f"def probe({xs}):\n    return np.sum({call} * WEIGHT)\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, "WEIGHT": 1.3}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["probe"]


def _sample(domain, shape, rng):
    low, high = domain
    if shape == ():
        return float(rng.uniform(low, high))
    return rng.uniform(low, high, size=shape)


def ufunc_cases():
    """(id, call text, arguments) for each ufunc of the family and each shape combination."""
    out = []
    for name, domains in UFUNC_DOMAINS.items():
        for k, shapes in enumerate(SHAPES[len(domains)]):
            shapes = (shapes,) if len(domains) == 1 else shapes
            rng = np.random.default_rng(k)
            args = [_sample(d, s, rng) for d, s in zip(domains, shapes)]
            xs = ", ".join(f"x{j}" for j in range(len(domains)))
            out.append((f"{name}-{'-'.join(map(str, shapes))}", f"np.{name}({xs})", args))
    return out


def step_cases():
    out = []
    for name in STEP_FUNCTIONS:
        for shape in SHAPES[1]:
            args = [_sample((-3, 3), shape, np.random.default_rng(1))]
            out.append((f"{name}-{shape}", f"x0 * np.{name}(x0)", args))
    return out


def reduction_cases():
    """(id, call text, arguments): x0 of distinct values (no ties: the derivative exists)."""
    x = np.random.default_rng(3).permutation(24).reshape(2, 3, 4) * 0.1 + 0.55
    x[1, 2] *= -1.0  # signs for the norms
    out = []
    for name, calls in REDUCTION_CALLS.items():
        for k, call in enumerate(calls):
            out.append((f"{name}-{k}", call, [x.copy()]))
    return out
