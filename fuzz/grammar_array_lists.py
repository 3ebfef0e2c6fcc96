"""Blocks of fuzz/grammar_lists.py whose lists hold 1-D arrays (`--lists --arrays`):

* a state history: `h = X[0] * a` (or `np.zeros(m) + a`, `X[0].copy()`), then a loop
  `h = np.tanh(h * c + X[i] * s)` appending `h`, sometimes under a data-dependent `if`;
* rows appended under a condition: `rs.append(X[i] * x[i] + a)`;
* list comprehensions of arrays: `[X[i] * c + x[i] for i in range(len(x))]`, `[v * a for v
  in X]`, and slices `x[i:i + 2] * a` appended in a stepped range;
* the lists read as lists of arrays are read: `np.stack` (under `if len(rs) > 0`, NumPy
  refuses an empty list), `sum` of a generator over it, `for g in rs`, `rs[k]` and `rs[-1]`,
  `sum(rs)` (the row sum), `np.sum(rs)`, `np.mean(rs, axis=0)`, `len(rs)`.

Values stay bounded (tanh, coefficients below 1 in magnitude). `array_list_blocks(rng, n, m,
fresh, c, threshold)` returns the block makers; each returns lines updating the float `s`.
"""

from __future__ import annotations


def array_list_blocks(rng, n, m, fresh, c, threshold) -> list:
    """Block makers over `x` (n floats), `X` (n x m), `a` and `s`; `fresh(base)` names,
    `c()` a coefficient, `threshold()` a test's threshold."""
    def reads(rs):
        k, total = rng.randint(0, 2), fresh("total")
        out = []
        for _ in range(rng.randint(1, 3)):
            out += rng.choice([
                [f"if len({rs}) > 0:", f"    s += np.sum(np.stack({rs}) ** 2) * {c()}"],
                [f"s = s * {c()} + sum(np.sum(g * g) for g in {rs}) * {c()}"],
                [f"for g in {rs}:", f"    s = s * {c()} + np.sum(g) * {c()}"],
                [f"if len({rs}) > {k}:", f"    s += np.sum({rs}[{k}] * {rs}[-1]) * {c()}"],
                [f"if len({rs}) > 0:", f"    {total} = sum({rs})",
                 f"    s += np.sum({total} * {total}) * {c()}"],
                [f"s += np.sum({rs}) * {c()} + len({rs}) * {c()}"],
                [f"if len({rs}) > 0:",
                 f"    s += np.sum(np.mean({rng.choice([rs, f'np.stack({rs})'])}, axis=0) "
                 f"* x[0]) * {c()}"],
            ])
        return out

    def history():
        hs, h = fresh("hs"), fresh("h")
        start = rng.choice(["X[0] * a", f"np.zeros({m}) + a", "X[0].copy()"])
        return history_loop(rng, hs, h, start, c, threshold) + reads(hs)

    def rows():
        rs = fresh("rs")
        return [f"{rs} = []", "for i in range(X.shape[0]):",
                f"    if x[i] > {threshold()}:",
                f"        {rs}.append(X[i] * x[i] * {c()} + a)"] + reads(rs)

    def comprehension():
        rs = fresh("rs")
        line = rng.choice([f"{rs} = [X[i] * {c()} + x[i] for i in range(len(x))]",
                           f"{rs} = [v * a * {c()} for v in X]",
                           f"{rs} = [X[i] * x[i] for i in range(len(x)) if x[i] > "
                           f"{threshold()}]"])
        return [line] + reads(rs)

    def slices():
        rs = fresh("rs")
        return [f"{rs} = []", f"for i in range(0, {n} - 1, 2):",
                f"    {rs}.append(x[i:i + 2] * a * {c()})"] + reads(rs)

    return [history, rows, comprehension, slices]


def history_loop(rng, hs, h, start, c, threshold) -> list:
    """`h = start`, then a loop `h = np.tanh(h * c + X[i] * s)` appending `h` to the list
    `hs` (under a data-dependent `if` 40% of the time): its lines."""
    lines = [f"{hs} = []", f"{h} = {start}", "for i in range(1, X.shape[0]):",
             f"    {h} = np.tanh({h} * {c()} + X[i] * s)"]
    if rng.random() < 0.4:
        return lines + [f"    if x[i] > {threshold()}:", f"        {hs}.append({h})"]
    return lines + [f"    {hs}.append({h})"]
