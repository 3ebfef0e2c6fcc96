"""Blocks of fuzz/grammar_lists.py whose list entries are arrays that may alias other arrays
(`--lists --aliasing`; their own random stream, so a seed's other blocks stay its own):

* a state `h` updated in a loop and appended each iteration: in place (`h[:] = ...`,
  `h[0] = ...`, `h *= c`: the list holds the same array each time, a Python reference),
  rebound (`h = ...`: a new array each time), or in place and appended as `h.copy()`;
  sometimes a view `h[0:2]` is appended instead of `h`;
* the rows `A[i]` of a local matrix appended in a loop, each row filled in its iteration,
  sometimes a row written again after the loop (the entry sees it);
* a local array in a list literal (`[v, X[0] * a]`) or stored by index (`ys[k] = v`), then
  sometimes written in place (`v[0] = ...`, `v[:] = ...`, or `v *= c` when `v` is bound to
  a whole-array expression: srcad refuses both kinds of write on one array).

srcad must follow Python's semantics (the entry sees later writes) or refuse the program
naming a line; a copy in place of the reference disagrees with the finite differences of
the Python function. Each maker returns lines updating the float `s`.
"""

from __future__ import annotations


def list_aliasing_blocks(rng, n, m, fresh, c) -> list:
    """Block makers over `x` (n floats), `X` (n x m), `a` and `s`; `fresh(base)` names,
    `c()` a coefficient."""
    def reads(rs):
        return rng.choice([
            [f"s += np.sum(np.stack({rs}) ** 2) * {c()}"],
            [f"for g in {rs}:", f"    s = s * {c()} + np.sum(g) * {c()}"],
            [f"s += np.sum({rs}[0] * {rs}[-1]) * {c()} + len({rs}) * {c()}"],
        ])

    def write(v, whole):
        """An in-place write of `v`; `whole`: `v` is bound to a whole-array expression, so
        its elements are not written (srcad refuses both for one array)."""
        if whole:
            return f"{v} *= {c()}"
        return rng.choice([f"{v}[0] = {v}[0] * {c()} + a",
                           f"{v}[:] = np.tanh({v} * {c()} + x[0])"])

    def history():
        hs, h = fresh("hs"), fresh("h")
        update = rng.choice(["in place", "element", "augmented", "rebound"])
        step = f"np.tanh({h} * {c()} + X[i] * s)"
        body = {"in place": f"{h}[:] = {step}",
                "element": f"{h}[0] = np.tanh({h}[0] * {c()} + X[i, 0] * s)",
                "augmented": f"{h} *= {c()}",
                "rebound": f"{h} = {step}"}[update]
        start = [f"{h} = X[0] * a"] if update in ("augmented", "rebound") else \
            [f"{h} = np.zeros({m})", f"{h}[:] = X[0] * a"]
        entry = rng.choice([h, h, f"{h}.copy()", f"{h}[0:2]"])
        return [f"{hs} = []"] + start + ["for i in range(1, X.shape[0]):", f"    {body}",
                                         f"    {hs}.append({entry})"] + reads(hs)

    def rows():
        rs, A = fresh("rs"), fresh("A")
        lines = [f"{rs} = []", f"{A} = np.zeros(({n}, {m}))", f"for i in range({n}):",
                 f"    {A}[i] = X[i] * x[i] * {c()} + a", f"    {rs}.append({A}[i])"]
        if rng.random() < 0.5:
            k = rng.randint(0, n - 1)
            lines.append(rng.choice([f"{A}[{k}] = {A}[{k}] * {c()} + x[0]",
                                     f"{A}[:, 0] = x * {c()}", f"{A} *= {c()}"]))
        return lines + reads(rs)

    def stored():
        ys, v = fresh("ys"), fresh("v")
        whole = rng.random() < 0.3
        lines = [f"{v} = X[1] * a + {c()}"] if whole else \
            [f"{v} = np.zeros({m})", f"{v}[:] = X[1] * a + {c()}"]
        if rng.random() < 0.5:
            lines.append(f"{ys} = [{v}, X[0] * a]")
        else:
            lines += [f"{ys} = [X[0] * a, X[1] * {c()}]", f"{ys}[{rng.randint(0, 1)}] = {v}"]
        if rng.random() < 0.3:
            lines.append(f"{ys}.append(X[0] * {c()})")
        if rng.random() < 0.7:
            lines.append(write(v, whole))
        return lines + reads(ys)

    return [history, rows, stored]
