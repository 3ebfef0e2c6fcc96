"""Problem 10: a scipy.special-heavy likelihood's gradient: negative-binomial regression
(counts y_i, covariates X_i, log r_i = X_i beta, success probability expit(alpha)), whose
log-likelihood calls gammaln three times per observation and whose gradient calls digamma.
srcad's reverse mode (python backend, scipy.special's own functions and srcad's rules)
against jax.jit(jax.grad) with jax.scipy.special and autograd with autograd.scipy.special, all
checked against a hand-written NumPy gradient first; the ratios to JAX and autograd are
timed interleaved (the same drift for both contenders).
"""

from __future__ import annotations

import numpy as np
import scipy.special
from harness import Suite, installed, interleaved_ratio, ratio, rows_table, run_case

S10 = "10. scipy.special likelihood (negative-binomial regression)"
SRCAD_PY = "srcad reverse, python backend"
HAND = "NumPy hand-written gradient (digamma)"
JAX = "jax.jit(jax.grad), jax.scipy.special"
AUTOGRAD = "autograd, autograd.scipy.special"


def negative_log_likelihood(theta, a, y):
    r = np.exp(a @ theta[:-1])
    p = scipy.special.expit(theta[-1])
    terms = (scipy.special.gammaln(y + r) - scipy.special.gammaln(r)
             - scipy.special.gammaln(y + 1.0) + r * np.log(p) + y * np.log1p(-p))
    return -np.sum(terms)


def hand_gradient(theta, a, y):
    r = np.exp(a @ theta[:-1])
    p = scipy.special.expit(theta[-1])
    d_r = scipy.special.digamma(y + r) - scipy.special.digamma(r) + np.log(p)
    d_alpha = np.sum(r * (1.0 - p) - y * p)  # d/d alpha of r log p + y log(1 - p)
    return np.concatenate([-(a.T @ (d_r * r)), [-d_alpha]])


def make_problem(n, d, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(scale=0.3, size=(n, d))
    beta = rng.normal(scale=0.5, size=d)
    y = rng.poisson(np.exp(a @ beta) * 1.5).astype(float)
    return np.append(beta, 0.2), a, y


def section_special(suite: Suite, srcad, sizes=((10_000, 8),)):
    print(f"\n{S10}")
    for n, d in sizes:
        special_case(suite, srcad, n, d)


def markdown_lines(suite) -> list:
    """The section of docs/benchmarks.md: each contender's time per gradient, then srcad's
    ratios to the others."""
    rows = [(f"{row.case}: {row.name}", row.median * 1e3 if row.ok else None, " ms",
             row.note if row.ok else row.status) for row in suite.rows if row.section == S10]
    rows += [(key.removeprefix("special "), value, "x", "interleaved" if JAX not in key
              else "ratio of the medians") for key, value in suite.extra.items()
             if key.startswith("special ")]
    return rows_table(S10, rows)


def special_case(suite: Suite, srcad, n, d):
    case = f"N={n}, d={d}"
    print(f" {case}")
    theta, a, y = make_problem(n, d)
    ref = hand_gradient(theta, a, y)

    def ours():
        t, shadow = theta.copy(), np.zeros(d + 1)

        def call():
            shadow.fill(0.0)
            srcad.autodiff(srcad.Reverse, negative_log_likelihood,
                           srcad.Duplicated(t, shadow), a, y)
        return call, lambda _: shadow

    def hand():
        return (lambda: hand_gradient(theta, a, y)), np.asarray

    def jax_grad():
        installed("jax")
        import jax
        jax.config.update("jax_enable_x64", True)
        from jax.scipy import special as js
        jnp = jax.numpy

        def f(t, a_, y_):
            r = jnp.exp(a_ @ t[:-1])
            p = js.expit(t[-1])
            return -jnp.sum(js.gammaln(y_ + r) - js.gammaln(r) - js.gammaln(y_ + 1.0)
                            + r * jnp.log(p) + y_ * jnp.log1p(-p))
        grad = jax.jit(jax.grad(f))
        inputs = [jax.device_put(v) for v in (theta, a, y)]
        return (lambda: jax.block_until_ready(grad(*inputs))), np.asarray

    def autograd_grad():
        installed("autograd")
        import autograd
        import autograd.numpy as anp
        from autograd.scipy import special as asp

        def f(t, a_, y_):
            r = anp.exp(anp.dot(a_, t[:-1]))
            p = 1.0 / (1.0 + anp.exp(-t[-1]))
            return -anp.sum(asp.gammaln(y_ + r) - asp.gammaln(r) - asp.gammaln(y_ + 1.0)
                            + r * anp.log(p) + y_ * anp.log1p(-p))
        grad = autograd.grad(f)
        return (lambda: grad(theta, a, y)), np.asarray

    setups, rows = {}, {}
    for name, setup, note in ((SRCAD_PY, ours, "includes zeroing the shadows"),
                              (HAND, hand, "the reference"),
                              (JAX, jax_grad, "x64 enabled; result left on device"),
                              (AUTOGRAD, autograd_grad, "")):
        row = run_case(suite, S10, case, name, setup, ref=ref, note=note)
        if row.ok:
            setups[name], rows[name] = setup, row
    # to NumPy code and autograd timed interleaved (the same drift); to JAX the ratio of
    # the medians: a JAX call right after another contender's waits for XLA's worker
    # threads to wake up (benchmarks/problem_arrays.py)
    pairs = None if suite.cfg.quick else 31
    for other in (JAX, AUTOGRAD, HAND):
        if SRCAD_PY not in setups or other not in setups:
            continue
        value = ratio(rows[SRCAD_PY], rows[other]) if other == JAX else interleaved_ratio(
            setups[SRCAD_PY]()[0], setups[other]()[0], suite.cfg, pairs=pairs)
        suite.extra[f"special {case}: {SRCAD_PY} / {other}"] = value
        print(f"  {SRCAD_PY} / {other}: {value:.2f}")
