"""Section 5 of "never silently wrong, round 3" from outside: prepared operators re-called with
an int Constant that sets shapes, with inputs f writes, np.float64, np.float32 and 0-d
arguments, and float32 inputs in every mode against JAX's dtype rule (float32 in, float32 out;
a tangent takes its primal output's dtype). Values against central differences, dtypes and
values against JAX (float64 enabled). Rows as the harness's: section, name, backend, mode,
outcome, detail."""
import numpy as np
from checks_prepared import outcome
from helpers.differences import central

import srcad

SECTION = "5 prepared"


def tiled(x, n):
    return np.sum(np.tile(x, n) ** 2 * np.arange(1.0, n * len(x) + 1))


def zeros_then_filled(x, n):
    out = np.zeros(n)
    out[:] = x[0] * x[1] ** 2
    return out * np.arange(1.0, n + 1)


def reshaped_rows(x, n):
    return np.sum(x.reshape(n, -1), axis=0) ** 2


def writes_its_input(x):
    x *= x[0]
    x[1:] += 1.0
    return np.sum(x ** 3)


def cubes_and_shape(x):  # NumPy's answer for a np.float64 (ndim 0, shape ()); a float has none
    return x ** 3 if x.ndim == 0 and x.shape == () else 0.0 * x


def tuple_result(x):
    return x ** 2, np.sum(np.sin(x))


def vector_result(x):
    return np.sin(x) * x[0]


def cubes(x):
    return np.sum(x ** 3 * np.cos(x))


def prepared_with_other_constants(backend, f, operator, x, n0, others):
    """Prepared at Constant(n0), called at each of `others`: right or a mismatch refusal."""
    prepare = getattr(srcad, f"prepare_{operator}")
    prep = prepare(f, x, srcad.Constant(n0), backend=backend)
    seen = []
    for n in others + [n0]:
        try:
            got = getattr(srcad, operator)(f, x, srcad.Constant(n), prep=prep)
        except srcad.PreparationMismatchError:
            seen.append(f"{n}:mismatch")
            continue
        want = central(lambda z: f(z, n), x)  # noqa: B023
        if np.shape(got) != np.shape(want) or not np.allclose(got, want, atol=1e-6):
            return False, f"n={n}: got {np.shape(got)} {got!r} want {np.shape(want)}"
        seen.append(f"{n}:ok")
    return seen[-1].endswith("ok"), " ".join(seen)


def prepared_written_input(backend, operator):
    x0, x = np.array([0.4, -0.3, 0.9]), np.array([0.5, -1.2, 0.8])
    kwargs = {"tangent": np.array([0.3, 0.7, 1.1])} if operator == "hvp" else {}
    prep = getattr(srcad, f"prepare_{operator}")(writes_its_input, x0.copy(), backend=backend,
                                                  **kwargs)
    got = [getattr(srcad, operator)(writes_its_input, x.copy(), prep=prep, **kwargs)
           for _ in range(2)]
    if operator == "gradient":
        want = central(lambda z: writes_its_input(z.copy()), x)
    else:
        H = central(lambda z: central(lambda w: writes_its_input(w.copy()), z, h=1e-5), x,
                    h=1e-5)
        want = H @ kwargs["tangent"] if operator == "hvp" else H
    ok = all(np.allclose(g, want, rtol=1e-4, atol=1e-4) for g in got)
    return ok, f"got {got!r} want {want!r}"


def scalar_kinds(backend):
    """np.float64 and np.float32 scalars and a 0-d array in every operator: f sees the type
    it was given (x.ndim, x.shape), the derivative agrees with differences, dtype with JAX."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    bad = []
    for kind, x in (("float64", np.float64(0.8)), ("float32", np.float32(0.8)),
                    ("0-d", np.array(0.8))):
        want1 = central(lambda t: cubes_and_shape(np.float64(t)), 0.8)
        want2 = 6 * 0.8
        jdtype = jax.grad(lambda t: t ** 3)(jnp.asarray(x)).dtype
        calls = {
            "grad": lambda: srcad.grad(cubes_and_shape, backend=backend)(x),  # noqa: B023
            "jacfwd": lambda: srcad.jacfwd(cubes_and_shape, backend=backend)(x),  # noqa: B023
            "gradient": lambda: srcad.gradient(cubes_and_shape, x, backend=backend),  # noqa: B023
            "hessian": lambda: srcad.hessian(cubes_and_shape, x, backend=backend),  # noqa: B023
            "second_derivative": lambda: srcad.second_derivative(  # noqa: B023
                cubes_and_shape, x, backend=backend),  # noqa: B023
        }
        for name, call in calls.items():
            try:
                got = call()
            except srcad.SrcadError as err:
                # a 0-d array is refused (documented); numba has no `.ndim` of a float64
                allowed = kind == "0-d" or backend == "numba"
                if not allowed or "checks_outside.py" not in str(err):
                    bad.append(f"{kind} {name}: {type(err).__name__} {str(err)[:120]}")
                continue
            except Exception as err:  # noqa: BLE001
                bad.append(f"{kind} {name}: crash {type(err).__name__} {err}")
                continue
            want = want2 if name in ("hessian", "second_derivative") else want1
            tol = 1e-3 if kind == "float32" else 1e-6
            if not np.allclose(got, want, rtol=tol, atol=tol) or np.ndim(got) != 0:
                bad.append(f"{kind} {name}: {got!r} want {want}")
            elif np.asarray(got).dtype != jdtype:
                bad.append(f"{kind} {name}: dtype {np.asarray(got).dtype}, JAX {jdtype}")
    return not bad, "; ".join(bad)


def float32_against_jax(backend):
    """float32 inputs: every operator's result has the dtype JAX gives, values agree."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    x = np.array([0.5, 1.0, 1.5], dtype=np.float32)
    v = np.array([0.3, 0.7, 1.1], dtype=np.float32)
    jc = lambda z: jnp.sum(z ** 3 * jnp.cos(z))  # noqa: E731
    jv = lambda z: jnp.sin(z) * z[0]  # noqa: E731
    jt = lambda z: (z ** 2, jnp.sum(jnp.sin(z)))  # noqa: E731
    j_hvp = jax.jvp(jax.grad(jc), (jnp.asarray(x),), (jnp.asarray(v),))[1]
    lanes = srcad.BatchDuplicated(x, [e.astype(np.float32) for e in np.eye(3)])
    pairs = {
        "grad": (lambda: srcad.grad(cubes, backend=backend)(x), jax.grad(jc)(x)),
        "value_and_grad": (lambda: srcad.value_and_grad(cubes, backend=backend)(x)[1],
                           jax.grad(jc)(x)),
        "jacfwd": (lambda: srcad.jacfwd(vector_result, backend=backend)(x),
                   jax.jacfwd(jv)(x)),
        "jacrev": (lambda: srcad.jacrev(vector_result, backend=backend)(x),
                   jax.jacrev(jv)(x)),
        "pushforward": (lambda: srcad.pushforward(vector_result, x, tangent=v,
                                                  backend=backend),
                        jax.jvp(jv, (x,), (v,))[1]),
        "jvp_tuple": (lambda: srcad.jvp(tuple_result, (x,), (v,), backend=backend)[1],
                      jax.jvp(jt, (x,), (v,))[1]),
        "jacfwd_tuple": (lambda: srcad.jacfwd(tuple_result, backend=backend)(x),
                         jax.jacfwd(jt)(x)),
        "vector_tuple": (lambda: srcad.autodiff(srcad.Forward, tuple_result, lanes,
                                                backend=backend),
                         tuple(np.asarray(t).T for t in jax.jacfwd(jt)(x))),
        "hessian": (lambda: srcad.hessian(cubes, x, backend=backend), jax.hessian(jc)(x)),
        "hvp": (lambda: srcad.hvp(cubes, x, tangent=v, backend=backend), j_hvp),
        "prepared_gradient": (lambda: srcad.gradient(
            cubes, x, prep=srcad.prepare_gradient(cubes, x, backend=backend)),
            jax.grad(jc)(x)),
        "prepared_hessian": (lambda: srcad.hessian(
            cubes, x, prep=srcad.prepare_hessian(cubes, x, backend=backend)),
            jax.hessian(jc)(x)),
    }
    bad = []
    for name, (call, want) in pairs.items():
        try:
            got = call()
        except Exception as err:  # noqa: BLE001
            bad.append(f"{name}: {type(err).__name__} {str(err)[:120]}")
            continue
        gs, ws = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(gs, ws):
            g, w = np.asarray(g), np.asarray(w)
            if g.shape != w.shape or not np.allclose(g, w, rtol=1e-4, atol=1e-4):
                bad.append(f"{name}: {g!r} want {w!r}")
            elif g.dtype != w.dtype:
                bad.append(f"{name}: dtype {g.dtype}, JAX {w.dtype}")
    return not bad, "; ".join(bad)


def checks(backends, only=None):
    """The rows of every check on `backends`, when section 5 is asked for (`only`)."""
    rows = []
    if only and not SECTION.startswith(only):
        return rows
    x4 = np.array([0.5, 1.0, 1.5, 2.0])
    for b in backends:
        rows.append(outcome("outside_tiled_constant", b, "prepared_gradient",
                            lambda: prepared_with_other_constants(  # noqa: B023
                                b, tiled, "gradient", x4, 2, [3, 1])))  # noqa: B023
        rows.append(outcome("outside_zeros_of_constant", b, "prepared_jacobian",
                            lambda: prepared_with_other_constants(  # noqa: B023
                                b, zeros_then_filled, "jacobian", x4, 2, [3, 1])))  # noqa: B023
        rows.append(outcome("outside_reshape_by_constant", b, "prepared_jacobian",
                            lambda: prepared_with_other_constants(  # noqa: B023
                                b, reshaped_rows, "jacobian", x4, 2, [4, 1])))  # noqa: B023
        for operator in ("gradient", "hessian", "hvp"):
            rows.append(outcome("outside_prepared_written_input", b, f"prepared_{operator}",
                                lambda: prepared_written_input(b, operator)))  # noqa: B023
        rows.append(outcome("outside_scalar_kinds", b, "grad,jacfwd,gradient,hessian,second",
                            lambda: scalar_kinds(b)))  # noqa: B023
        rows.append(outcome("outside_float32_vs_jax", b, "all",
                            lambda: float32_against_jax(b)))  # noqa: B023
    return rows
