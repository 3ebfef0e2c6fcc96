"""Gradient of a Kalman filter's log-likelihood, written as a new user would write it: a
predict/update loop over the observations with np.linalg.solve and np.linalg.slogdet.

A constant-velocity model in two dimensions (state: position and velocity in x and y;
observed: the positions) with unknown process and observation noise scales. The gradient
of the log-likelihood with respect to the two log-scales is what a maximum-likelihood fit
needs; srcad's reverse mode gives it on the python and numba backends, checked here against
central differences.

Run with ``python examples/kalman_filter.py``. The function is importable without srcad.
"""

import math

import numpy as np


def kalman_loglikelihood(log_scales, observations, dt):
    """Log-likelihood of `observations` (n x 2 positions) under the constant-velocity model
    with process noise exp(log_scales[0]) and observation noise exp(log_scales[1])."""
    q = math.exp(log_scales[0])
    r = math.exp(log_scales[1])
    transition = np.eye(4)
    transition[0, 2] = dt
    transition[1, 3] = dt
    observe = np.zeros((2, 4))
    observe[0, 0] = 1.0
    observe[1, 1] = 1.0
    process = q * np.eye(4)
    noise = r * np.eye(2)
    mean = np.zeros(4)
    covariance = np.eye(4)
    total = 0.0
    for t in range(observations.shape[0]):
        # predict
        mean = transition @ mean
        covariance = transition @ covariance @ transition.T + process
        # update
        innovation = observations[t] - observe @ mean
        innovation_cov = observe @ covariance @ observe.T + noise
        solved = np.linalg.solve(innovation_cov, innovation)
        sign, logdet = np.linalg.slogdet(innovation_cov)
        total = total - 0.5 * (logdet + innovation @ solved + 2.0 * math.log(2.0 * math.pi))
        gain = np.linalg.solve(innovation_cov, observe @ covariance).T
        mean = mean + gain @ innovation
        covariance = covariance - gain @ observe @ covariance
    return total


def simulated(n=50, seed=0, dt=0.1):
    """Observations of a noisy constant-velocity track."""
    rng = np.random.default_rng(seed)
    state = np.array([0.0, 0.0, 1.0, 0.5])
    out = np.zeros((n, 2))
    for t in range(n):
        state[:2] += dt * state[2:]
        state[2:] += 0.05 * rng.standard_normal(2)
        out[t] = state[:2] + 0.1 * rng.standard_normal(2)
    return out


def main():
    import srcad

    observations = simulated()
    log_scales = np.array([-3.0, -2.0])
    h = 1e-6
    central = np.array([(kalman_loglikelihood(log_scales + h * e, observations, 0.1)
                         - kalman_loglikelihood(log_scales - h * e, observations, 0.1)) / (2 * h)
                        for e in np.eye(2)])
    for backend in ("python", "numba"):
        gradient = srcad.grad(kalman_loglikelihood, backend=backend)(log_scales, observations,
                                                                       0.1)
        print(f"{backend:6}: gradient {gradient}  (central differences {central})")
        np.testing.assert_allclose(gradient, central, rtol=1e-6)


if __name__ == "__main__":
    main()
