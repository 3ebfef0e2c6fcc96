"""Section 5 of "never silently wrong, round 3" and the refusal texts of section 9: prepared
operators and the arguments f receives, checked by hand (each check returns rows like the
harness: section, name, backend, mode, outcome, detail)."""
import math

import numpy as np
from harness import INTERNAL
from helpers.differences import central

import srcad

SECTION = "5 prepared"


def first_n_cubed(x, n):
    return x[:n] ** 2 * 3.0


def sum_of_roots(x):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i])
    return s


def reads_shape(x):
    return x ** 3 if x.ndim == 0 and x.shape == () else np.sum(x)


def quartic(x):
    return x ** 4 + 3.0 * x


def floor_times(x):
    return np.sum(np.floor(x) * x)


def outcome(name, backend, mode, call):
    try:
        ok, detail = call()
        return (SECTION, name, backend, mode, "ok" if ok else "wrong", "" if ok else detail)
    except srcad.SrcadError as err:
        bad = INTERNAL.search(str(err)) is not None
        return (SECTION, name, backend, mode, "refused-badly" if bad else "refused",
                f"{type(err).__name__}: {str(err)[:240]}")
    except Exception as err:  # noqa: BLE001
        return (SECTION, name, backend, mode, "crash", f"{type(err).__name__}: {err}"[:300])


def prepared_jacobian_other_n(backend, mode):
    x = np.array([0.5, 1.0, 1.5, 2.0])
    prep = srcad.prepare_jacobian(first_n_cubed, x, srcad.Constant(2), backend=backend,
                                  mode=mode)
    results = []
    for n in (1, 3, 2):
        try:
            J = srcad.jacobian(first_n_cubed, x, srcad.Constant(n), prep=prep)
        except srcad.PreparationMismatchError:
            results.append("mismatch")
            continue
        want = central(lambda z: first_n_cubed(z, n), x)  # noqa: B023
        if not (J.shape == want.shape and np.allclose(J, want, atol=1e-6)):
            return False, f"n={n}: shape {J.shape}, want {want.shape}"
        results.append("ok")
    return results[-1] == "ok", str(results)


def gradient_at_zero(backend, prepared):
    x = np.array([0.0, 1.0, 4.0])
    kwargs = {"backend": backend}
    if prepared:
        kwargs = {"prep": srcad.prepare_gradient(sum_of_roots, x + 1.0, backend=backend)}
    try:
        srcad.gradient(sum_of_roots, x, **kwargs)
    except srcad.SrcadError as err:
        return "non-finite" in str(err) or "finite" in str(err), str(err)[:200]
    except ZeroDivisionError as err:
        return False, f"bare ZeroDivisionError {err}"
    return False, "no error"


def float64_reaches_f(backend):
    x = np.float64(0.8)
    g = srcad.grad(reads_shape, backend=backend)(x)
    want = central(lambda t: reads_shape(np.float64(t)), 0.8)
    h = srcad.gradient(reads_shape, x, backend=backend)
    return bool(np.isclose(g, want) and np.isclose(h, want)), f"{g} {h} want {want}"


def zero_d_stays(backend):
    x = np.array(0.8)
    g = srcad.grad(reads_shape, backend=backend)(x)
    return bool(np.isclose(g, central(lambda t: reads_shape(np.float64(t)), 0.8))), f"{g!r}"


def float32_rule(backend):
    def cubes(x):
        return np.sum(x ** 3)
    x = np.array([0.5, 1.0, 1.5], dtype=np.float32)
    got = {
        "grad": srcad.grad(cubes, backend=backend)(x),
        "jacfwd": srcad.jacfwd(cubes, backend=backend)(x),
        "jacrev": srcad.jacrev(cubes, backend=backend)(x),
        "hessian": srcad.hessian(cubes, x, backend=backend),
        "gradient_fwd": srcad.gradient(cubes, x, mode="forward", backend=backend),
        "vector": np.asarray(srcad.autodiff(srcad.Forward, cubes, srcad.BatchDuplicated(
            x, [e.astype(np.float32) for e in np.eye(3)]), backend=backend)),
    }
    dtypes = {k: np.asarray(v).dtype for k, v in got.items()}
    return all(d == np.float32 for d in dtypes.values()), str(dtypes)


def prepared_hessian_of_float(backend):
    prep = srcad.prepare_hessian(quartic, 1.0, backend=backend)
    H = srcad.hessian(quartic, 2.0, prep=prep)
    return isinstance(H, float) and H == 48.0, repr(H)


def floor_hessian_refusal(backend):
    H = srcad.hessian(floor_times, np.array([0.5, 1.5]), backend=backend)
    want = np.zeros((2, 2))
    return bool(np.allclose(H, want)), repr(H)


def checks(backends, only=None):
    """The rows of every check on `backends`, when section 5 is asked for (`only`)."""
    rows = []
    if only and not SECTION.startswith(only):
        return rows
    for backend in backends:
        for mode in ("forward", "reverse"):
            rows.append(outcome("jacobian_other_int_constant", backend, mode,
                                lambda: prepared_jacobian_other_n(backend, mode)))  # noqa: B023
        for prepared in (False, True):
            rows.append(outcome("gradient_sqrt_at_zero", backend,
                                "prepared" if prepared else "unprepared",
                                lambda: gradient_at_zero(backend, prepared)))  # noqa: B023
        rows.append(outcome("np_float64_reaches_f", backend, "grad+gradient",
                            lambda: float64_reaches_f(backend)))  # noqa: B023
        rows.append(outcome("zero_d_array_reaches_f", backend, "grad",
                            lambda: zero_d_stays(backend)))  # noqa: B023
        rows.append(outcome("float32_dtype_rule", backend, "all",
                            lambda: float32_rule(backend)))  # noqa: B023
        rows.append(outcome("prepared_hessian_of_float", backend, "prepared_hessian",
                            lambda: prepared_hessian_of_float(backend)))  # noqa: B023
        rows.append(outcome("hessian_floor_times_x", backend, "hessian",
                            lambda: floor_hessian_refusal(backend)))  # noqa: B023
    return rows
