"""A physics simulation loop: a chain of masses joined by springs, integrated with velocity
Verlet. The gradient of the final kinetic energy with respect to every spring constant comes
from reverse mode through all the time steps.

Run with ``python examples/springs.py``.
"""

import numpy as np

import srcad


def final_kinetic_energy(k, x0, rest, dt, steps):
    """Masses of weight 1 at positions x0 (at rest), neighbours joined by springs of stiffness
    k[i] and rest length rest; the ends are free. Returns the kinetic energy after `steps`
    velocity-Verlet steps."""
    n = len(x0)
    x = x0.copy()
    v = np.zeros(n)
    a = np.zeros(n)
    for i in range(n - 1):
        f = k[i] * (x[i + 1] - x[i] - rest)
        a[i] += f
        a[i + 1] -= f
    for _ in range(steps):
        for i in range(n):
            v[i] += 0.5 * dt * a[i]
            x[i] += dt * v[i]
        for i in range(n):
            a[i] = 0.0
        for i in range(n - 1):
            f = k[i] * (x[i + 1] - x[i] - rest)
            a[i] += f
            a[i + 1] -= f
        for i in range(n):
            v[i] += 0.5 * dt * a[i]
    energy = 0.0
    for i in range(n):
        energy += 0.5 * v[i] * v[i]
    return energy


def main():
    n = 6
    k = np.linspace(1.0, 3.0, n - 1)
    x0 = np.arange(n) * 1.0 + 0.2 * np.sin(np.arange(n))  # springs stretched unevenly
    problem = (x0, 1.0, 0.01, 300)  # positions, rest length, time step, steps
    energy, dk = srcad.value_and_grad(final_kinetic_energy)(k, *problem)
    step = 1e-6
    fd = np.array([(final_kinetic_energy(k + step * e, *problem)
                    - final_kinetic_energy(k - step * e, *problem)) / (2 * step)
                   for e in np.eye(n - 1)])
    error = np.max(np.abs(dk - fd)) / np.max(np.abs(fd))
    print(f"{n} masses, 300 velocity-Verlet steps: final kinetic energy {energy:.6f}")
    print(f"d energy / d spring constants: {np.array2string(dk, precision=6)}")
    print(f"central finite differences:    {np.array2string(fd, precision=6)}")
    print(f"max relative difference: {error:.1e}")
    assert error < 1e-6
    return error


if __name__ == "__main__":
    main()
