"""Blocks of fuzz/grammar_lists.py whose lists are appended to in loops with no bound on the
appends known before them (`--lists --unbounded`; srcad/transform/normalize/
unbounded_lists.py grows their buffers):

* a `while` on a tolerance: `t = t * c` until `abs(t) < tol`, appending under an `if` too,
  with a `break` on the list's length, reading `ys[-1]` while it fills;
* a counter stepped by 1 or 2 under an `if`, or stepped first and skipped by `continue`;
* a counted `while` in an outer loop with its counter set once before that loop;
* an inner range whose length the loop nest computes (`k = i % 3 + 1; for j in range(k)`);
* a fresh list per iteration of an outer loop filled by a `while` on a tolerance;
* with `--arrays` too, a state history `h = np.tanh(h * c + X[len(hs) % len(x)] * s)`
  appended in a `while` on a tolerance, read by `np.stack`, `hs[-1]` and `len`.

Drawn from their own random stream (`random.Random(f"unbounded lists {seed}")`), so the
other blocks of a seed keep their text. Lists stay short (a factor below 0.8 per step, a
tolerance of at least 0.02, a length cap).
"""

from __future__ import annotations


def unbounded_list_blocks(rng, fresh, c, threshold, reads, arrays=False) -> list:
    """Block makers over `x`, `a` and `s` (and `X` with `arrays`); `fresh(base)` names, `c()`
    a coefficient, `threshold()` a test's threshold, `reads(ys)` lines reading a list."""
    def factor():
        return repr(round(rng.choice([-1, 1]) * rng.uniform(0.3, 0.8), 3))

    def tolerance():
        return repr(round(rng.uniform(0.02, 0.2), 3))

    def item(t):
        return rng.choice([f"{t} * a", f"{t} * {t} * {c()}", f"math.sin({t}) * x[0]",
                           f"{t} * {c()} + a * s"])

    def tolerance_loop():
        ys, t = fresh("ys"), fresh("t")
        lines = [f"{ys} = []", f"{t} = x[0] * {c()} + a * {c()} + {c()}",
                 f"while abs({t}) > {tolerance()}:"]
        if rng.random() < 0.4:
            lines += [f"    if {t} > {threshold()}:", f"        {ys}.append({item(t)})",
                      "    else:", f"        {ys}.append({t} * {c()} + 0.3719)"]
        else:
            lines += [f"    {ys}.append({item(t)})"]
        if rng.random() < 0.3:
            lines += [f"    if len({ys}) > {rng.randint(2, 6)}:", "        break"]
        if rng.random() < 0.4:  # read while it fills
            lines += [f"    s = s * {c()} + {ys}[-1] * {c()}"]
        return lines + [f"    {t} = {t} * {factor()}"] + reads(ys)

    def stepped_counter():
        ys, i = fresh("ys"), fresh("i")
        lines = [f"{ys} = []", f"{i} = 0", f"while {i} < len(x):"]
        if rng.random() < 0.5:  # stepped under an if
            lines += [f"    {ys}.append(x[{i}] * {c()} + 0.3719 * {i})",
                      f"    if x[{i}] > {threshold()}:", f"        {i} += 1", "    else:",
                      f"        {i} += 2"]
        else:  # stepped first, skipped by continue
            lines += [f"    {i} += 1", f"    if x[{i} - 1] < {threshold()}:", "        continue",
                      f"    {ys}.append(x[{i} - 1] * a + 0.1237 * {i})"]
        return lines + reads(ys)

    def nested_counted_while():
        ys, j = fresh("ys"), fresh("j")
        lines = [f"{ys} = []", f"{j} = 0", "for i in range(len(x)):",
                 f"    while {j} < len(x):",
                 f"        {ys}.append(x[i] * x[{j}] * {c()} + 0.0917 * {j})",
                 f"        {j} += 1"]
        if rng.random() < 0.7:
            lines += [f"        if {j} % {rng.randint(2, 3)} == 0:", "            break"]
        return lines + reads(ys)

    def computed_inner_range():
        ys, k = fresh("ys"), fresh("k")
        lines = [f"{ys} = []", "for i in range(len(x)):",
                 f"    {k} = i % {rng.randint(2, 3)} + {rng.randint(0, 1)}",
                 f"    for j in range({k}):",
                 f"        {ys}.append(x[i] * {c()} + x[j % len(x)] * a + 0.0611 * j)"]
        return lines + reads(ys)

    def fresh_per_iteration():
        ys, t = fresh("ys"), fresh("t")
        lines = ["for i in range(len(x)):", f"    {ys} = []", f"    {t} = x[i] * {c()} + {c()}",
                 f"    while abs({t}) > {tolerance()}:", f"        {ys}.append({item(t)})",
                 f"        {t} = {t} * {factor()}", f"    if len({ys}) > 0:"]
        return lines + ["        " + line for line in reads(ys)]

    def state_history():
        hs, h, t = fresh("hs"), fresh("h"), fresh("t")
        return [f"{hs} = []", f"{h} = X[0] * a", f"{t} = x[0] * {c()} + {c()}",
                f"while abs({t}) > {tolerance()}:",
                f"    {h} = np.tanh({h} * {c()} + X[len({hs}) % len(x)] * s)",
                f"    {hs}.append({h})", f"    {t} = {t} * {factor()}",
                f"if len({hs}) > 0:",
                f"    s += np.sum(np.stack({hs}) ** 2) * {c()} + np.sum({hs}[-1]) * len({hs}) "
                f"* {c()}"]

    return [tolerance_loop, stepped_counter, nested_counted_while, computed_inner_range,
            fresh_per_iteration] + ([state_history] * 2 if arrays else [])
