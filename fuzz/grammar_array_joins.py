"""Blocks of fuzz/grammar_lists.py that join lists into arrays (`--lists --arrays`, drawn from
their own random stream after the other blocks, so those stay what a seed gave before):

* a state history of rows `h = np.tanh(h * c + X[i] * s)` (under an `if` too) read by
  `np.vstack`, `np.hstack`, `np.concatenate` (`axis=0`, `axis=None`), `np.column_stack`,
  `np.stack(axis=1)`/`axis=-1`, also while it fills;
* a list of matrices `P = np.tanh(P * c + np.outer(X[i], X[i]) * s)` (a covariance-like
  update, under an `if` too) read by `np.stack`, `np.array`, `Ps[-1]`, `sum(Ps)`,
  `np.vstack`, `np.concatenate`, `for Q in Ps`, `np.mean(np.stack(Ps), axis=0)`;
* rows whose length is computed: `np.concatenate([X[i] * c, x[:k] * a])`;
* a list variable of known length (`ps = [X[0] * a, X[1] * c]`) given to the same calls;
* a list of numbers read by `np.hstack`, `np.vstack`, `np.column_stack`, `np.stack(axis=-1)`.

A join of a list that may be empty is under `if len(rs) > 0:` (NumPy raises on an empty one).
`array_join_blocks(rng, n, m, fresh, c, threshold)` returns the block makers; each returns
lines updating the float `s`.
"""

from __future__ import annotations

from grammar_array_lists import history_loop


def array_join_blocks(rng, n, m, fresh, c, threshold) -> list:
    """Block makers over `x` (n floats), `X` (n x m), `a` and `s`; `fresh(base)` names,
    `c()` a coefficient, `threshold()` a test's threshold."""
    def joined_rows(rs, width):
        return rng.choice([
            f"np.sum(np.vstack({rs}) ** 2)",
            f"np.sum(np.hstack({rs}) * np.concatenate({rs}, axis=0))",
            f"np.sum(np.concatenate({rs}, axis=None) ** 3)",
            f"np.sum(np.column_stack({rs})[{rng.randrange(width)}])",
            f"np.sum(np.stack({rs}, axis=1) ** 2)",
            f"np.sum(np.vstack({rs})[-1] * np.stack({rs}, axis=-1)[0, 0])",
        ])

    def guarded(rs, expression):
        return [f"if len({rs}) > 0:", f"    s += {expression} * {c()}"]

    def history():
        hs = fresh("hs")
        lines = history_loop(rng, hs, fresh("h"), "X[0] * a", c, threshold)
        if rng.random() < 0.3:  # read while it fills
            lines += [f"    if len({hs}) > 0:",
                      f"        s = s * {c()} + {joined_rows(hs, m)} * {c()}"]
        return lines + guarded(hs, joined_rows(hs, m))

    def matrices():
        Ps, P, Q = fresh("Ps"), fresh("P"), fresh("Q")
        lines = [f"{Ps} = []", f"{P} = np.outer(X[0], X[0]) * {c()}",
                 "for i in range(1, X.shape[0]):",
                 f"    {P} = np.tanh({P} * {c()} + np.outer(X[i], X[i]) * s)"]
        if rng.random() < 0.4:
            lines += [f"    if x[i] > {threshold()}:", f"        {Ps}.append({P})"]
        else:
            lines += [f"    {Ps}.append({P})"]
        out = []
        for _ in range(rng.randint(1, 2)):
            out += rng.choice([
                guarded(Ps, f"np.sum(np.stack({Ps}) ** 2)"),
                guarded(Ps, f"np.sum(np.array({Ps}) * {Ps}[-1])"),
                guarded(Ps, f"np.sum(sum({Ps}) @ X[0])"),
                guarded(Ps, f"np.sum(np.vstack({Ps}) * np.concatenate({Ps}))"),
                guarded(Ps, f"np.sum(np.mean(np.stack({Ps}), axis=0) ** 2)"),
                [f"for {Q} in {Ps}:", f"    s = s * {c()} + np.sum({Q} * {Q}) * {c()}"],
            ])
        return lines + out

    def computed_width():
        rs, k = fresh("rs"), rng.randint(1, n)
        lines = [f"{rs} = []", "for i in range(X.shape[0]):",
                 f"    if x[i] > {threshold()}:",
                 f"        {rs}.append(np.concatenate([X[i] * {c()}, x[:{k}] * a]))"]
        return lines + guarded(rs, joined_rows(rs, m + k))

    def list_variable():
        ps = fresh("ps")
        return [f"{ps} = [X[0] * a, X[1] * {c()}]", f"s += {joined_rows(ps, m)} * {c()}"]

    def numbers():
        ys = fresh("ys")
        lines = [f"{ys} = []", "for i in range(x.shape[0]):", f"    if x[i] > {threshold()}:",
                 f"        {ys}.append(x[i] * {c()} + a)"]
        read = rng.choice([f"np.sum(np.hstack({ys}) * np.stack({ys}, axis=-1))",
                           f"np.sum(np.vstack({ys}) @ np.column_stack({ys}))",
                           f"np.sum(np.column_stack({ys})[0] ** 2)"])
        return lines + guarded(ys, read)

    return [history, matrices, computed_width, list_variable, numbers]
