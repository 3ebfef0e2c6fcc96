"""Section 6 of "never silently wrong, round 3": tuple and list literals passed to library
calls, each as a function of a float. The tuple form and the list form must both be
differentiated as arrays, or both refused."""
import math
import statistics

import numpy as np
from harness import Probe

TUPLES = {
    "mean": lambda x: np.mean((x, x + 2)),
    "norm": lambda x: np.linalg.norm((x, x + 2)),
    "std": lambda x: np.std((x, 3 * x + 2)),
    "var": lambda x: np.var((x, 3 * x + 2)),
    "prod": lambda x: np.prod((x, x + 2)),
    "average": lambda x: np.average((x, x + 2)),
    "median": lambda x: np.median((x, x + 2, 4 * x + 1)),
    "dot": lambda x: np.dot((x, 2 * x), (1., 3.)),
    "interp": lambda x: np.interp(0.5, (0.0, 1.0), (x, 2 * x)),
    "polyval": lambda x: np.polyval((x, 1.0), 2.0 + x),
    "fmean": lambda x: statistics.fmean((x, x + 2)),
    "fsum": lambda x: math.fsum((x, 2 * x)),
    "math_prod": lambda x: math.prod((x, x + 2)),
    "median_low": lambda x: statistics.median_low((x, x + 2, 4 * x + 1)),
}
LISTS = {
    "mean": lambda x: np.mean([x, x + 2]),
    "norm": lambda x: np.linalg.norm([x, x + 2]),
    "std": lambda x: np.std([x, 3 * x + 2]),
    "var": lambda x: np.var([x, 3 * x + 2]),
    "prod": lambda x: np.prod([x, x + 2]),
    "average": lambda x: np.average([x, x + 2]),
    "median": lambda x: np.median([x, x + 2, 4 * x + 1]),
    "dot": lambda x: np.dot([x, 2 * x], [1., 3.]),
    "interp": lambda x: np.interp(0.5, [0.0, 1.0], [x, 2 * x]),
    "polyval": lambda x: np.polyval([x, 1.0], 2.0 + x),
    "fmean": lambda x: statistics.fmean([x, x + 2]),
    "fsum": lambda x: math.fsum([x, 2 * x]),
    "math_prod": lambda x: math.prod([x, x + 2]),
    "median_low": lambda x: statistics.median_low([x, x + 2, 4 * x + 1]),
}

MODES = ("value_and_grad", "grad", "jacfwd", "jacrev", "pushforward", "gradient_forward",
         "gradient_reverse", "prepared_gradient", "second_derivative", "hessian")
LITERALS = []
for name in TUPLES:
    for form, table in (("tuple", TUPLES), ("list", LISTS)):
        for x in (0.0, 0.3):
            LITERALS.append(Probe(f"{name}_{form}@{x}", table[name], x, "6 literals",
                                  refusal_allowed=True, modes=MODES))
