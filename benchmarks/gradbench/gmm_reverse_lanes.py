"""How fast gmm's jacobian on numba could run with the points in lanes in the reverse sweep
too: a measurement, not a product path.

    SRCAD_NUMBA_REASSOCIATE=0|1 python benchmarks/gradbench/gmm_reverse_lanes.py 10_25 32_10

srcad's numba reverse-mode code of the GradBench port's loop form (`srcad.source`, in the
mode the environment selects) is taken as generated, and its two nests over the points are
replaced by hand with the form a general rewrite would have to produce
(srcad/transform/numba_outer_lanes.py does it for the primal and forward mode only):

* forward sweep: each block of 128 points runs each component's work over the block's points
  (lanes), records nothing for it, then each point's log-sum-exp as generated (its tape
  records as before);
* reverse sweep: blocks in descending order; each point's log-sum-exp adjoint as generated
  (descending points), `main_term`'s adjoint kept in lanes; then for each component in
  descending order, the component's forward work recomputed in lanes (instead of taped), then
  its adjoint in lanes, the triangle's rows four at a time. In order, every sum into a
  parameter's adjoint (`mu`, `l`, `alpha`, `q` through `qdiags`, `sum_qs`) adds its terms in
  the order of the code as written: descending points, for each point descending positions
  (reassociated, the loops over the lanes run ascending, which LLVM vectorizes). In order
  (`SRCAD_NUMBA_REASSOCIATE` unset) the result must have the bits of srcad's jacobian; the
  script checks it, and times both beside GradBench's JAX tool (the port's JAX form, jitted,
  on one thread as `run.py` runs it: benchmarks/gradbench/jax_one_thread.py).

The splice finds the nests by the generated code's text: a change of the generator stops it
with an AssertionError, not a wrong time. The spliced text is compiled by `numba.njit` with
srcad's fast-math licences but without srcad's later passes on the generated code (the
indices cast to unsigned, srcad/transform/numba_indices.py): srcad's own text compiled so ran
1.8-2.2x slower than srcad's kernel, so the lanes form's times are if anything high.
"""

from __future__ import annotations

import math
import sys
import textwrap
import time
from pathlib import Path

import numba
import numpy as np

import srcad
from srcad.build.numba_fastmath import fastmath_flags
from srcad.gradbench.ports import gmm
from srcad.gradbench.ports.common import srcad_gradient
from srcad.runtime.checkpointing import TapeOverBudget
from srcad.runtime.numba_runtime import reserve_tape, simd_exp, zero_signs_differ
from srcad.runtime.numba_semantics import unshared

BLOCK = 128
ROWS = 4  # the triangle's rows per pass of its adjoint (8 measured slower)


def _indent(text, n):
    return textwrap.indent(text, " " * n)


def _components(recompute: bool) -> str:
    """One component's forward work over the block's points (`xc_l`, `qxc_l`), the triangle's
    columns four at a time (each row's terms in the order written); `mt_l` when not
    recomputing."""
    out = """\
for j in range(d):
    for lane in range(cnt):
        xc_l[j, lane] = x[ix_start + lane, j] - mu[ik, j]
qd = qdiags[ik]
lt = l[ik]
for qi in range(d):
    for lane in range(cnt):
        qxc_l[qi, lane] = qd[qi] * xc_l[qi, lane]
qi = 0
while qi + 4 <= d:
    base = qi * d - qi * (qi + 1) // 2  # lp of (qi, qi + 1)
    for qj in range(qi + 1, d):
        if qj <= qi + 3:  # a partial row: its terms one column at a time
            for c in range(qi, qj):
                coef = lt[c * d - c * (c + 1) // 2 + qj - c - 1]
                for lane in range(cnt):
                    qxc_l[qj, lane] = qxc_l[qj, lane] + coef * xc_l[c, lane]
        else:
            c0 = lt[base + qj - qi - 1]
            c1 = lt[base + (d - qi - 1) + qj - qi - 2]
            c2 = lt[base + (d - qi - 1) + (d - qi - 2) + qj - qi - 3]
            c3 = lt[base + (d - qi - 1) + (d - qi - 2) + (d - qi - 3) + qj - qi - 4]
            for lane in range(cnt):
                qxc_l[qj, lane] = (((qxc_l[qj, lane] + c0 * xc_l[qi, lane])
                                    + c1 * xc_l[qi + 1, lane]) + c2 * xc_l[qi + 2, lane]
                                   ) + c3 * xc_l[qi + 3, lane]
    qi += 4
while qi < d:
    for qj in range(qi + 1, d):
        coef = lt[qi * d - qi * (qi + 1) // 2 + qj - qi - 1]
        for lane in range(cnt):
            qxc_l[qj, lane] = qxc_l[qj, lane] + coef * xc_l[qi, lane]
    qi += 1
"""
    if not recompute:
        out += """\
for lane in range(cnt):
    s_l[lane] = 0.0
for si in range(d):
    for lane in range(cnt):
        s_l[lane] = s_l[lane] + qxc_l[si, lane] * qxc_l[si, lane]
for lane in range(cnt):
    mt_l[ik, lane] = alpha[ik] + sum_qs[ik] - 0.5 * s_l[lane]
"""
    return out


_ADJOINT_TEMPLATE = """\
qdb = qdiags_bar[ik]
ltb = l_bar[ik]
a = alpha_bar[ik]
b = sum_qs_bar[ik]
for lane in range(cnt - 1, -1, -1):
    v = mtb_l[ik, lane]
    a += v
    b += v
alpha_bar[ik] = a
sum_qs_bar[ik] = b
for lane in range(cnt):
    g_l[lane] = 0.5 * -mtb_l[ik, lane]
for si in range(d):
    for lane in range(cnt):
        qxcb_l[si, lane] += 2.0 * (g_l[lane] * qxc_l[si, lane])
lp = d * (d - 1) // 2
for qi in range(d - 1, -1, -1):
    if qi + 1 < d:
        for lane in range(cnt):
            sum_l[lane] = 0.0
        qj = d - 1
{ROWS}        while qj > qi:
            lp -= 1
            c = lt[lp]
            acc = ltb[lp]
            for lane in range(cnt - 1, -1, -1):
                q0 = qxcb_l[qj, lane]
                acc += q0 * xc_l[qi, lane]
                sum_l[lane] += c * q0
            ltb[lp] = acc
            qj -= 1
        for lane in range(cnt):
            xcb_l[qi, lane] += sum_l[lane]
for qi in range(d - 1, -1, -1):
    acc = qdb[qi]
    for lane in range(cnt - 1, -1, -1):
        acc += qxcb_l[qi, lane] * xc_l[qi, lane]
    qdb[qi] = acc
    c = qd[qi]
    for lane in range(cnt):
        xcb_l[qi, lane] += c * qxcb_l[qi, lane]
        qxcb_l[qi, lane] = 0.0
for j in range(d - 1, -1, -1):
    acc = mu_bar[ik, j]
    for lane in range(cnt - 1, -1, -1):
        acc += -xcb_l[j, lane]
        xcb_l[j, lane] = 0.0
    mu_bar[ik, j] = acc
"""


def _rows_at_a_time(rows: int) -> str:
    """The triangle's adjoint `rows` rows at a time: `rows` sums into `l`'s adjoint, each a
    chain over the lanes in descending order, and one update of the row sums per lane."""
    r = range(rows)
    out = [f"        while qj - {rows - 1} > qi:  # {rows} rows at a time, each sum in order"]
    out += [f"            c{i} = lt[lp - {i + 1}]" for i in r]
    out += [f"            a{i} = ltb[lp - {i + 1}]" for i in r]
    out += ["            for lane in range(cnt - 1, -1, -1):",
            "                xv = xc_l[qi, lane]"]
    out += [f"                q{i} = qxcb_l[qj - {i}, lane]" for i in r]
    out += [f"                a{i} += q{i} * xv" for i in r]
    total = "sum_l[lane]"
    for i in r:
        total = f"({total} + c{i} * q{i})"
    out += [f"                sum_l[lane] = {total}"]
    out += [f"            ltb[lp - {i + 1}] = a{i}" for i in r]
    out += [f"            lp -= {rows}", f"            qj -= {rows}"]
    return "\n".join(out) + "\n"


def _adjoint(rows: int, reassociated: bool) -> str:
    """The component's adjoint over the lanes. Reassociated, the sums over the lanes run
    ascending: descending, their signed counter kept LLVM from vectorizing them (the
    triangle's adjoint alone at d=32: 1.4-1.5 ms descending, 0.37-0.42 ms ascending for 80
    passes; srcad/transform/numba_indices.py, which would cast it to unsigned, does not run
    on this text); in order they run descending, the order written, and are chains of
    dependent additions either way."""
    out = _ADJOINT_TEMPLATE.replace("{ROWS}", _rows_at_a_time(rows))
    return out.replace("range(cnt - 1, -1, -1)", "range(cnt)") if reassociated else out


def _find(lines, start, test, what):
    for i in range(start, len(lines)):
        if test(lines[i]):
            return i
    raise AssertionError(f"the generated code has no {what}: the splice needs updating")


def _outdented(lines, start):
    """The index of the first line after `start` at indentation 4 (the nest's end)."""
    return _find(lines, start + 1, lambda s: s.startswith("    ") and s[4] != " ",
                 "end of the nest")


def spliced_source(source: str, reassociated: bool) -> str:
    lines = source.split("\n")
    fwd = _find(lines, 0, lambda s: s == "    for ix in range(n):", "forward nest")
    tail = _find(lines, fwd, lambda s: s == "        # inlined call logsumexp(main_term)",
                 "point's log-sum-exp")
    fwd_end = _outdented(lines, fwd)
    rev = _find(lines, fwd_end, lambda s: s.startswith("    for ix in range(0 + (ix_count"),
                "reverse nest")
    comps = _find(lines, rev, lambda s: s.startswith("        for ik in range(0 + (ik_count"),
                  "reverse loop over the components")
    rev_end = _outdented(lines, rev)
    point_tail = "\n".join(lines[tail:fwd_end])
    point_adjoint = "\n".join(lines[rev + 1:comps - 1])
    forward = f"""\
    W = min(n, {BLOCK})
    xc_l = np.empty((d, W))
    qxc_l = np.empty((d, W))
    s_l = np.empty(W)
    mt_l = np.empty((k, W))
    for ix_start in range(0, n, {BLOCK}):
        cnt = min({BLOCK}, n - ix_start)
        for ik in range(k):
{_indent(_components(False), 12)}
        for ix in range(ix_start, ix_start + cnt):
            for ik in range(k):
                main_term[ik] = mt_l[ik, ix - ix_start]
{_indent(point_tail, 4)}"""
    reverse = f"""\
    W = min(n, {BLOCK})
    mtb_l = np.empty((k, W))
    xcb_l = np.zeros((d, W))
    qxcb_l = np.zeros((d, W))
    g_l = np.empty(W)
    sum_l = np.empty(W)
    for ix_start in range(((n - 1) // {BLOCK}) * {BLOCK}, -1, -{BLOCK}):
        cnt = min({BLOCK}, n - ix_start)
        for ix in range(ix_start + cnt - 1, ix_start - 1, -1):
{_indent(point_adjoint, 4)}
            for ik in range(k):
                mtb_l[ik, ix - ix_start] = main_term_bar[ik]
                main_term_bar[ik] = 0.0
        for ik in range(k - 1, -1, -1):
{_indent(_components(True), 12)}
{_indent(_adjoint(ROWS, reassociated), 12)}"""
    return "\n".join(lines[:fwd] + [forward] + lines[fwd_end:rev] + [reverse]
                     + lines[rev_end:])


def _arguments(p):
    return [srcad.Duplicated(a, np.zeros_like(a)) for a in p.independent] \
        + list(p.loop_constants())


_KERNELS = {}  # spliced source -> its numba kernel (one compile for every size)


def compiled_lanes(p):
    """A zero-argument callable: the spliced code's gradient of `p` (shadows zeroed first)."""
    source = spliced_source(srcad.source(gmm.gmm_loops, srcad.Reverse, *_arguments(p),
                                         backend="numba"), _reassociated())
    if source not in _KERNELS:
        namespace = dict(np=np, math=math, simd_exp=simd_exp, reserve_tape=reserve_tape,
                         zero_signs_differ=zero_signs_differ, unshared=unshared,
                         TapeOverBudget=TapeOverBudget)
        exec(compile(source, "<gmm reverse in lanes>", "exec"), namespace)
        _KERNELS[source] = numba.njit(fastmath=set(fastmath_flags()))(
            namespace["gmm_loops_reverse"])
    kernel = _KERNELS[source]
    bars = [np.zeros_like(a) for a in p.independent]
    tape, int_tape = np.empty(1 << 16), np.empty(1 << 10, np.int64)

    def call():
        nonlocal tape, int_tape
        for b in bars:
            b.fill(0.0)
        alpha, mu, q, l = p.independent
        _, _, grown, grown_int = kernel(alpha, bars[0], mu, bars[1], q, bars[2], l, bars[3],
                                        *p.loop_constants(), 1.0, tape, int_tape)
        tape = tape if grown is None else grown
        int_tape = int_tape if grown_int is None else grown_int
        return bars

    return call


def _least_cpu(call, repeats):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times)


def _jax_call(p):
    _, _, jax_gradient = p.jax_functions  # made by gmm.reference_jacobian
    arrays = p.independent

    def call():
        return [a.block_until_ready() for a in jax_gradient(*arrays)]

    call()  # compiles, outside the timing
    return call


def _reassociated() -> bool:
    return bool(fastmath_flags() - {"arcp"})


def main(sizes):
    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    from benchmarks.gradbench.jax_one_thread import pin_jax_to_one_cpu

    print(pin_jax_to_one_cpu())
    reassociated = _reassociated()
    print(f"sums {'reassociated' if reassociated else 'in order'}; least CPU time of 8 calls, "
          "3 interleaved rounds")
    for size in sizes:
        d, k = map(int, size.split("_"))
        p = gmm.Problem(gmm.generate(d, k, 1000))
        srcad_call = srcad_gradient(gmm.gmm_loops, p.independent, p.loop_constants(), "numba")
        lanes_call = compiled_lanes(p)
        expected = [a.copy() for a in srcad_call()]
        got = lanes_call()
        equal = all(np.array_equal(a, b) for a, b in zip(expected, got))
        error = max(abs(a - b).max() / abs(a).max() for a, b in zip(expected, got))
        assert error < 1e-12, error
        assert equal or reassociated, "in order, the lanes must keep srcad's bits"
        reference = gmm.reference_jacobian(p)
        jax_error = max(abs(a - b).max() / abs(b).max() for a, b in zip(got, reference))
        assert jax_error < 1e-10, jax_error
        jax_call = _jax_call(p)
        rounds = [[_least_cpu(f, 8) for f in (srcad_call, lanes_call, jax_call)]
                  for _ in range(3)]
        s, lanes, j = (min(r[i] for r in rounds) * 1e3 for i in range(3))
        print(f"{size}: srcad {s:.3f} ms ({s / j:.2f}x), lanes by hand {lanes:.3f} ms "
              f"({lanes / j:.2f}x), JAX tool {j:.3f} ms; bits equal: {equal}, "
              f"relative difference {error:.1e}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["10_25", "32_10"])
