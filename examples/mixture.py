"""Gradient of a Gaussian-mixture log-likelihood, written with plain loops.

The log-likelihood is written as a user would write it, with a helper
``normal_pdf`` called in the inner loop. ``mixture_gradient_numpy`` is a
hand-derived, vectorized analytic gradient used as the reference that srcad's
reverse mode must reproduce.

Run with ``make demo``. The math functions are importable without srcad.
"""

import math

import numpy as np


def normal_pdf(x, mean, var):
    """Density of the normal distribution N(mean, var) at x."""
    return math.exp(-((x - mean) ** 2) / (2.0 * var)) / math.sqrt(2.0 * math.pi * var)


def mixture_loglikelihood(params, data):
    """Log-likelihood of data under a K-component mixture.

    params = [K weights, K means, K standard deviations]; the weights are not normalized.
    """
    K = len(params) // 3
    total = 0.0
    for n in range(len(data)):
        x = data[n]
        acc = 0.0
        for k in range(K):
            w = params[k]
            m = params[K + k]
            s = params[2 * K + k]
            acc += w * normal_pdf(x, m, s * s)
        total += math.log(acc)
    return total


def mixture_gradient_numpy(params, data):
    """Analytic gradient of ``mixture_loglikelihood`` with respect to params.

    With phi_nk = N(x_n; m_k, s_k^2), p_n = sum_k w_k phi_nk and the responsibilities
    r_nk = w_k phi_nk / p_n:

        dL/dw_k = sum_n phi_nk / p_n
        dL/dm_k = sum_n r_nk (x_n - m_k) / s_k^2
        dL/ds_k = sum_n r_nk ((x_n - m_k)^2 / s_k^3 - 1 / s_k)

    The last line holds for negative s_k too, since the primal only sees s_k^2.
    """
    params = np.asarray(params, dtype=float)
    data = np.asarray(data, dtype=float)
    K = len(params) // 3
    w, m, s = params[:K], params[K : 2 * K], params[2 * K : 3 * K]
    var = s * s
    diff = data[:, None] - m[None, :]  # (N, K)
    phi = np.exp(-(diff**2) / (2.0 * var)) / np.sqrt(2.0 * np.pi * var)
    p = phi @ w  # (N,)
    phi_over_p = phi / p[:, None]
    resp = phi_over_p * w  # (N, K)
    d_w = phi_over_p.sum(axis=0)
    d_m = (resp * diff).sum(axis=0) / var
    d_s = (resp * (diff**2 / (var * s) - 1.0 / s)).sum(axis=0)
    return np.concatenate([d_w, d_m, d_s])


def make_problem(N, K, seed=42):
    """N standard-normal data points; K weights in [0, 1), K standard-normal means and K
    standard deviations in [0, 2)."""
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(N)
    params = np.concatenate([rng.random(K), rng.standard_normal(K), 2 * rng.random(K)])
    return params, data


def main():
    import srcad

    for N, K in [(500, 4), (500, 40)]:
        params, data = make_problem(N, K)
        dparams = np.zeros_like(params)
        _, value = srcad.autodiff(
            srcad.ReverseWithPrimal,
            mixture_loglikelihood,
            srcad.Duplicated(params, dparams),
            data,
        )
        reference = mixture_gradient_numpy(params, data)
        max_rel = np.max(np.abs(dparams - reference) / np.maximum(np.abs(reference), 1e-300))
        print(f"N={N} K={K}: log-likelihood {value:.12g}")
        print("  gradient (K weights, then K means, then K standard deviations):")
        print("    " + np.array2string(dparams, precision=6, threshold=20, edgeitems=3,
                                       prefix="    "))
        print(f"  max relative difference vs NumPy gradient: {max_rel:.3e}")
        assert max_rel < 1e-10, f"gradient mismatch: {max_rel}"
        # the same gradient as a function of params, JAX style (data is a constant)
        same = np.array_equal(srcad.grad(mixture_loglikelihood)(params, data), dparams)
        print(f"  srcad.grad(mixture_loglikelihood)(params, data) gives the same: {same}")
        if K == 4:
            print("Generated adjoint source:")
            print(
                srcad.source(
                    mixture_loglikelihood,
                    srcad.Reverse,
                    srcad.Duplicated(params, np.zeros_like(params)),
                    data,
                )
            )


if __name__ == "__main__":
    main()
