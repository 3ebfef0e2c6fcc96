"""Twelve short programs a new user writes with the library surface (NumPy, scipy.special,
scipy.linalg, scipy.stats), each differentiated by srcad as written (`srcad.grad`, no
rewriting) on the python and the numba backend and compared with JAX (float64) on the same
program written with jax.numpy / jax.scipy. Prints one line per program and backend: agree,
refused (srcad's reason), WRONG (the largest difference) or crash.

Usage: PYTHONPATH=$PWD python scripts/new_user_programs.py [python] [numba]
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import jax.scipy.special as jsp
import jax.scipy.stats as jst
import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats

import srcad
from srcad.errors import SrcadError

jax.config.update("jax_enable_x64", True)
_rng = np.random.default_rng(11)
POINTS = np.linspace(0.0, 2.0, 6)  # inputs of the Gaussian process
TARGETS = np.sin(3.0 * POINTS) + 0.1 * _rng.standard_normal(6)
COUNTS = np.array([3.0, 0.0, 7.0, 2.0, 4.0, 1.0])
FEATURES = _rng.standard_normal((6, 4))
LABELS = np.array([0, 2, 1, 1, 0, 2])
ONE_HOT = np.eye(3)[LABELS]
TOKENS = np.array([2, 0, 3, 3, 1])
SAMPLE = _rng.standard_normal(8) * 1.5 + 0.4
BINARY = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0])


def black_scholes(x):
    spot, strike, years, rate, sigma = x[0], x[1], x[2], x[3], x[4]
    d1 = (np.log(spot / strike) + (rate + 0.5 * sigma ** 2) * years) / (sigma * np.sqrt(years))
    d2 = d1 - sigma * np.sqrt(years)
    return spot * scipy.special.ndtr(d1) - strike * np.exp(-rate * years) \
        * scipy.special.ndtr(d2)


def gp_log_likelihood(x):
    amplitude, length, noise = np.exp(x[0]), np.exp(x[1]), np.exp(x[2])
    gaps = POINTS[:, None] - POINTS[None, :]
    kernel = amplitude * np.exp(-0.5 * gaps ** 2 / length ** 2) + noise * np.eye(6)
    lower = scipy.linalg.cholesky(kernel, lower=True)
    white = scipy.linalg.solve_triangular(lower, TARGETS, lower=True)
    alpha = scipy.linalg.cho_solve((lower, True), TARGETS)
    return -0.5 * np.dot(white, white) - np.sum(np.log(np.diag(lower))) \
        + 0.0 * np.sum(alpha) - 3.0 * np.log(2.0 * np.pi)


def negative_binomial_fit(x):
    r, p = np.exp(x[0]), scipy.special.expit(x[1])
    return np.sum(scipy.special.gammaln(COUNTS + r) - scipy.special.gammaln(r)
                  - scipy.special.gammaln(COUNTS + 1.0) + r * np.log(p)
                  + COUNTS * np.log1p(-p))


def softmax_cross_entropy(x):
    logits = FEATURES @ x.reshape(4, 3)
    return np.mean(scipy.special.logsumexp(logits, axis=1) - np.sum(logits * ONE_HOT, axis=1))


def clipped_loss(x):
    residual = FEATURES @ x - TARGETS
    return np.sum(np.clip(residual, -0.5, 0.5) * residual)


def embedding_lookup(x):
    table = x.reshape(4, 3)
    rows = table[TOKENS]
    return np.sum(np.tanh(rows @ np.array([0.3, -0.2, 0.5])) ** 2)


def attention(x):
    q, k, v = x[:12].reshape(4, 3), x[12:24].reshape(4, 3), x[24:].reshape(4, 3)
    scores = np.einsum("id,jd->ij", q, k) / np.sqrt(3.0)
    weights = np.exp(scores - scipy.special.logsumexp(scores, axis=1, keepdims=True))
    return np.sum(np.einsum("ij,jd->id", weights, v) ** 2)


def layer_norm(x):
    h = x.reshape(3, 4)
    normed = (h - np.mean(h, axis=1, keepdims=True)) / np.std(h, axis=1, keepdims=True)
    return np.sum(normed * np.arange(12.0).reshape(3, 4))


def normal_log_likelihood(x):
    return np.sum(scipy.stats.norm.logpdf(SAMPLE, loc=x[0], scale=np.exp(x[1])))


def poisson_regression(x):
    return np.sum(scipy.stats.poisson.logpmf(COUNTS, np.exp(FEATURES @ x)))


def logistic_regression(x):
    p = scipy.special.expit(FEATURES @ x)
    return -np.mean(scipy.special.xlogy(BINARY, p) + scipy.special.xlog1py(1.0 - BINARY, -p))


def student_t_fit(x):
    return np.sum(scipy.stats.t.logpdf(SAMPLE, np.exp(x[0]) + 1.0, loc=x[1], scale=np.exp(x[2])))


def _jax_programs():
    """The same programs in jax.numpy / jax.scipy."""
    points, targets = jnp.asarray(POINTS), jnp.asarray(TARGETS)

    def bs(x):
        s, k, t, r, sig = x
        d1 = (jnp.log(s / k) + (r + 0.5 * sig ** 2) * t) / (sig * jnp.sqrt(t))
        d2 = d1 - sig * jnp.sqrt(t)
        return s * jsp.ndtr(d1) - k * jnp.exp(-r * t) * jsp.ndtr(d2)

    def gp(x):
        a, ell, n = jnp.exp(x[0]), jnp.exp(x[1]), jnp.exp(x[2])
        gaps = points[:, None] - points[None, :]
        kern = a * jnp.exp(-0.5 * gaps ** 2 / ell ** 2) + n * jnp.eye(6)
        low = jsl.cholesky(kern, lower=True)
        white = jsl.solve_triangular(low, targets, lower=True)
        return -0.5 * white @ white - jnp.sum(jnp.log(jnp.diag(low))) - 3.0 * jnp.log(2 * jnp.pi)

    def nb(x):
        r, p = jnp.exp(x[0]), jsp.expit(x[1])
        return jnp.sum(jsp.gammaln(COUNTS + r) - jsp.gammaln(r) - jsp.gammaln(COUNTS + 1.0)
                       + r * jnp.log(p) + COUNTS * jnp.log1p(-p))

    def ce(x):
        logits = FEATURES @ x.reshape(4, 3)
        return jnp.mean(jsp.logsumexp(logits, axis=1) - jnp.sum(logits * ONE_HOT, axis=1))

    def clip(x):
        res = FEATURES @ x - targets
        return jnp.sum(jnp.clip(res, -0.5, 0.5) * res)

    def emb(x):
        return jnp.sum(jnp.tanh(x.reshape(4, 3)[TOKENS] @ jnp.array([0.3, -0.2, 0.5])) ** 2)

    def att(x):
        q, k, v = x[:12].reshape(4, 3), x[12:24].reshape(4, 3), x[24:].reshape(4, 3)
        s = jnp.einsum("id,jd->ij", q, k) / jnp.sqrt(3.0)
        w = jnp.exp(s - jsp.logsumexp(s, axis=1, keepdims=True))
        return jnp.sum(jnp.einsum("ij,jd->id", w, v) ** 2)

    def ln(x):
        h = x.reshape(3, 4)
        normed = (h - h.mean(axis=1, keepdims=True)) / h.std(axis=1, keepdims=True)
        return jnp.sum(normed * jnp.arange(12.0).reshape(3, 4))

    def norm(x):
        return jnp.sum(jst.norm.logpdf(SAMPLE, loc=x[0], scale=jnp.exp(x[1])))

    def poisson(x):
        return jnp.sum(jst.poisson.logpmf(COUNTS, jnp.exp(FEATURES @ x)))

    def logistic(x):
        p = jsp.expit(FEATURES @ x)
        return -jnp.mean(jsp.xlogy(BINARY, p) + jsp.xlog1py(1.0 - BINARY, -p))

    def student(x):
        return jnp.sum(jst.t.logpdf(SAMPLE, jnp.exp(x[0]) + 1.0, loc=x[1], scale=jnp.exp(x[2])))

    return [bs, gp, nb, ce, clip, emb, att, ln, norm, poisson, logistic, student]


PROGRAMS = [(black_scholes, np.array([100.0, 95.0, 0.5, 0.03, 0.25])),
            (gp_log_likelihood, np.array([0.1, -0.7, -2.0])),
            (negative_binomial_fit, np.array([0.4, -0.3])),
            (softmax_cross_entropy, _rng.standard_normal(12) * 0.5),
            (clipped_loss, np.array([0.3, -0.2, 0.1, 0.25])),
            (embedding_lookup, _rng.standard_normal(12)),
            (attention, _rng.standard_normal(36) * 0.6),
            (layer_norm, _rng.standard_normal(12)),
            (normal_log_likelihood, np.array([0.2, 0.3])),
            (poisson_regression, np.array([0.2, -0.1, 0.15, 0.05])),
            (logistic_regression, np.array([0.5, -0.4, 0.3, 0.1])),
            (student_t_fit, np.array([1.2, 0.3, 0.2]))]


def main(argv) -> int:
    backends = [a for a in argv if a in ("python", "numba")] or ["python", "numba"]
    failures = 0
    for (f, x), twin in zip(PROGRAMS, _jax_programs()):
        expected = np.asarray(jax.grad(twin)(jnp.asarray(x)))
        for backend in backends:
            try:
                value = srcad.grad(f, backend=backend)(x.copy())
            except SrcadError as error:
                outcome = "refused  " + str(error).splitlines()[0][:140]
            except Exception as error:  # noqa: BLE001 - a crash is what the probe reports
                outcome = f"crash    {type(error).__name__}: {error}"[:160]
            else:
                gap = float(np.max(np.abs(value - expected)))
                good = np.allclose(value, expected, rtol=1e-7, atol=1e-9)
                outcome = "agree" if good else f"WRONG    max difference {gap:.3g}"
            failures += outcome != "agree"
            print(f"{f.__name__:24} {backend:7} {outcome}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
