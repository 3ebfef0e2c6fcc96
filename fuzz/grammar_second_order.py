"""Programs for second order and forward mode's slice updates (`run.py --second-order`,
`generate(seed, second_order=True)`): `f(x)` with `x` a Duplicated float vector, returning a
float. Three to five blocks, each adding to a float `s`:

* a local array bound to an expression of x (`np.sin(x) * c`, `x * c + d`, `np.cumsum(x)`,
  `np.exp(x * c)`, `x.copy()`), then updated in part by a constant (`p[1:] += c`,
  `p[:2] -= c`, `p[:] *= c`, `p[-1] /= c`) or by itself (`p[1:] += p[1:] ** 2 * c`), read by
  sums and elements;
* f writing its input (`x *= c`, `x[:] = x * c`, `x /= c`, `x *= x[0]`, `x[1:] += c`);
* a loop over x with a data-dependent early return (`if acc > c: return acc * x[i] + s`).

Besides forward, vector and reverse mode (check_grads), checking.py checks these programs'
Hessian (`srcad.hessian`) against central differences of srcad's own gradient, and hvp
along a direction against the Hessian (the module sets `SECOND_ORDER = True`). Drawn from
`random.Random(f"second order {seed}")`; other programs are unchanged.
"""

from __future__ import annotations

import random

from program import PRELUDE, ArgKind, Program


def _k(rng) -> str:
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.2, 0.9), 3))


def _positive(rng) -> str:
    return repr(round(rng.uniform(0.5, 2.0), 3))


def _blocks(rng):
    def updated_local(n):
        p = f"p{n}"
        bound = rng.choice([f"np.sin(x) * {_k(rng)}", f"x * {_k(rng)} + {_k(rng)}",
                            "np.cumsum(x)", f"np.exp(x * {_k(rng)})", "x.copy()",
                            f"np.tanh(x) + x * {_k(rng)}"])
        lines = [f"{p} = {bound}"]
        for _ in range(rng.randint(1, 3)):
            lines.append(rng.choice([f"{p}[1:] += {_k(rng)}", f"{p}[:2] -= {_k(rng)}",
                                     f"{p}[:] *= {_k(rng)}", f"{p}[-1] /= {_positive(rng)}",
                                     f"{p}[1:] *= {_positive(rng)}", f"{p}[0] += {_k(rng)}",
                                     f"{p}[1:] += {p}[1:] ** 2 * {_k(rng)}"]))
        read = rng.choice([f"np.sum({p} ** 2) * {_k(rng)}", f"{p}[-1] * x[0]",
                           f"np.sum({p} * x) * {_k(rng)}", f"np.sum(np.sin({p}))"])
        return lines + [f"s += {read}"]

    def written_input(n):
        update = rng.choice([f"x *= {_k(rng)}", f"x[:] = x * {_k(rng)}",
                             f"x /= {_positive(rng)}", "x *= x[0]", f"x[1:] += {_k(rng)}",
                             f"x[:] *= {_positive(rng)}"])
        return [update, f"s += np.sum(x ** 3) * {_k(rng)}"]

    def early_return(n):
        return [f"acc{n} = 0.0", "for i in range(len(x)):",
                f"    acc{n} += x[i] * x[i] * {_positive(rng)}",
                f"    if acc{n} > {_positive(rng)}:",
                f"        return acc{n} * x[i] + s",
                f"s += acc{n} * {_k(rng)}"]

    return [updated_local, updated_local, written_input, early_return]


def generate(seed: int) -> Program:
    rng = random.Random(f"second order {seed}")
    n = rng.randint(2, 5)
    lines = ["def f(x):", "    s = 0.0"]
    kinds = _blocks(rng)
    for k in range(rng.randint(2, 4)):
        lines += ["    " + line for line in rng.choice(kinds)(k)]
    lines.append(f"    return s + np.sum(x ** 2) * {_k(rng)}")
    source = PRELUDE + "\nSECOND_ORDER = True\n\n\n" + "\n".join(lines) + "\n"
    return Program(seed, source, "f", [ArgKind("dup", "x", (n,))], True)
