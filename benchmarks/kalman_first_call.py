"""Time to the first gradient of a Kalman filter's log-likelihood, written as a new user would
write it: a predict/update loop over the observations with np.linalg.solve and
np.linalg.slogdet.

A constant-velocity model in two dimensions (state: position and velocity in x and y;
observed: the positions) with unknown process and observation noise scales. The gradient
of the log-likelihood with respect to the two log-scales is what a maximum-likelihood fit
needs; srcad's reverse mode gives it on the python and numba backends, checked here against
central differences.

    python benchmarks/kalman_first_call.py [--backend numba]

measures, in a new process with an empty cache folder (cold) and in a second one reading
the folder the first filled (warm), the CPU and wall-clock time from the first call of
`srcad.grad(kalman_loglikelihood, backend=...)` to its gradient, checked against central
differences.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

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


_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np, srcad
from benchmarks.kalman_first_call import check, kalman_loglikelihood, simulated
observations, log_scales = simulated(), np.array([-3.0, -2.0])
cpu, wall = time.process_time(), time.perf_counter()
gradient = srcad.grad(kalman_loglikelihood, backend=sys.argv[2])(log_scales, observations, 0.1)
print(time.process_time() - cpu, time.perf_counter() - wall)
check(gradient, log_scales, observations)
"""


def check(gradient, log_scales, observations, dt=0.1, h=1e-6):
    """Raise unless `gradient` agrees with central differences of the log-likelihood."""
    central = np.array([(kalman_loglikelihood(log_scales + h * e, observations, dt)
                         - kalman_loglikelihood(log_scales - h * e, observations, dt)) / (2 * h)
                        for e in np.eye(len(log_scales))])
    np.testing.assert_allclose(gradient, central, rtol=1e-6)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numba")
    args = parser.parse_args(argv)
    root = str(Path(__file__).resolve().parents[1])
    print(f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="srcad-kalman-") as folder:
        for run in ("cold", "warm"):
            done = subprocess.run([sys.executable, "-c", _CHILD, root, args.backend],
                                  capture_output=True, text=True, check=True,
                                  env=dict(os.environ, SRCAD_CACHE_DIR=folder))
            cpu, wall = map(float, done.stdout.split())
            print(f"kalman {args.backend} {run}: {wall:.1f} s ({cpu:.1f} s CPU)")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
