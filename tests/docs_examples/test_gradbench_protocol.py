"""srcad's GradBench tool against messages in GradBench's own layout: each input below is
written from the eval's spec (evals/<name>/README.md and cpp/gradbench/evals/<name>.hpp of
GradBench), small, never made by the ports' generators; each reply is checked against the
output format the eval's reference tool writes and against a computation written here by hand
in NumPy from the spec (not the ports' code)."""

import io
import json
import math

import numpy as np
import pytest

import srcad.gradbench

common = srcad.gradbench.load_ports()  # the ports shipped with srcad


def tool(backend="python"):
    return srcad.gradbench.Tool(common, backend, log=io.StringIO())


def exchange(t, message):
    """The tool's response to `message` as the eval reads it: one strict-JSON line."""
    line = srcad.gradbench.dumps(t.respond(json.loads(json.dumps(message))))
    assert "\n" not in line
    return json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))


def evaluate(t, module, function, data, id=2):
    response = exchange(t, {"id": id, "kind": "evaluate", "module": module,
                            "function": function, "input": data})
    assert response["success"] is True, response.get("error")
    assert response["id"] == id
    return response


RUNS = {"min_runs": 1, "min_seconds": 0}


# -- the protocol ------------------------------------------------------------------------------
def test_hello_is_answered_as_the_hello_eval_drives_it():
    # evals/hello: a bare number as input (no min_runs), square then double, four times
    t = tool()
    assert exchange(t, {"id": 0, "kind": "start", "eval": "hello"})["id"] == 0
    assert exchange(t, {"id": 1, "kind": "define", "module": "hello"}) == {"id": 1,
                                                                            "success": True}
    x, id = 1.0, 2
    for _ in range(4):
        y = evaluate(t, "hello", "square", x, id)
        assert y["output"] == x * x and [s["name"] for s in y["timings"]].count("evaluate") == 1
        assert exchange(t, {"id": id + 1, "kind": "analysis", "of": id, "valid": True}) == {
            "id": id + 1}
        x = evaluate(t, "hello", "double", y["output"], id + 2)["output"]
        assert x == 2 * y["output"]
        id += 4
    assert x == 32768.0  # 1 -> 1 -> 2 -> 4 -> 8 -> 64 -> 128 -> 16384 -> 32768


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_non_finite_output_is_null_and_the_line_is_strict_json():
    t = tool()
    response = evaluate(t, "lse", "primal", {"x": [1e308, 1e308, 1e308]} | RUNS)
    # lse of three 1e308 is 1e308 + log 3, finite; of inf entries, inf: written as null
    assert response["output"] == pytest.approx(1e308)
    response = evaluate(t, "lse", "primal", {"x": [math.inf, 0.0]} | RUNS)
    assert response["output"] is None
    assert "Infinity" not in srcad.gradbench.dumps({"id": 0, "output": [math.nan, -math.inf]})


def test_an_unknown_kind_gets_its_id_and_define_refuses_what_it_cannot_run():
    t = tool()
    assert exchange(t, {"id": 5, "kind": "end"}) == {"id": 5}
    response = exchange(t, {"id": 6, "kind": "define", "module": "no_such_eval"})
    assert response["success"] is False and "no_such_eval" in response["error"]
    for name in sorted(t.evals):  # every port's every function has an implementation
        assert exchange(t, {"id": 7, "kind": "define", "module": name})["success"] is True


def test_preparation_is_paid_once_per_input_and_never_timed():
    t = tool()
    data = {"x": [0.5, -1.0, 2.0]}
    first = evaluate(t, "lse", "gradient", data | {"min_runs": 2, "min_seconds": 0})
    again = evaluate(t, "lse", "gradient", data | {"min_runs": 3, "min_seconds": 0})
    assert [s["name"] for s in first["timings"]] == ["prepare", "evaluate", "evaluate"]
    assert [s["name"] for s in again["timings"]] == ["prepare", "evaluate", "evaluate",
                                                     "evaluate"]
    # the second message reuses the first one's preparation (no transform, no compile)
    assert again["timings"][0]["nanoseconds"] < first["timings"][0]["nanoseconds"]
    assert len(t.prepared) == 1
    e = np.exp(np.array(data["x"]) - 2.0)
    np.testing.assert_allclose(again["output"], e / e.sum(), rtol=1e-12)


# -- particle and saddle: every function the evals send ---------------------------------------
@pytest.mark.slow  # nested solves, ~1 s each on the python backend
@pytest.mark.parametrize("function", ["rr", "ff", "fr", "rf"])
def test_particle_answers_each_function_it_is_sent(function):
    # evals/particle/run.py: {"w": 0.0}; its expected output 0.2071918746486116 (tolerance
    # 1e-4 of compare_json_objects); here from w = 0.2, near the optimum, to stay quick
    response = evaluate(tool(), "particle", function, {"w": 0.2} | RUNS)
    assert abs(response["output"] - 0.2071918746486116) < 1e-4


@pytest.mark.slow
@pytest.mark.parametrize("function", ["ff", "rf"])
def test_saddle_answers_each_function_it_is_sent(function):
    response = evaluate(tool(), "saddle", function, {"start": [0.3, 0.3]} | RUNS)
    output = response["output"]
    assert isinstance(output, list) and len(output) == 4
    assert all(isinstance(v, float) for v in output)


def test_every_particle_and_saddle_function_is_srcad_not_the_primal():
    t = tool()
    for module, functions in (("particle", ("ff", "fr", "rf", "rr")),
                              ("saddle", ("ff", "fr", "rf", "rr"))):
        for function in functions:
            tools = {i.tool for i in t.candidates(module, function)}
            assert tools and tools <= {"srcad-python"}, (module, function, tools)


# -- ba: ba.hpp's from_json replicates one camera, point, weight and feature -------------------
# p >= 10: ba.hpp's to_json copies the first 30 of the 3 p + 1 row starts
BA_INPUT = {"n": 2, "m": 3, "p": 10,
            "cam": [0.02, -0.01, 0.03, 0.1, -0.2, -5.0, 410.0, 1.5, 1.2, 0.01, -0.002],
            "x": [0.3, -0.4, 1.2], "w": 0.8, "feat": [0.5, -0.25]}


def ba_residual(cam, X, w, feat):
    """ba.hpp's computeReprojError and computeZachWeightError, by hand."""
    rot, pt = np.asarray(cam[:3]), np.asarray(X) - np.asarray(cam[3:6])
    theta = np.linalg.norm(rot)
    k = rot / theta
    rotated = (pt * np.cos(theta) + np.cross(k, pt) * np.sin(theta)
               + k * (k @ pt) * (1 - np.cos(theta)))
    proj = rotated[:2] / rotated[2]
    rsq = proj @ proj
    proj = proj * (1 + cam[9] * rsq + cam[10] * rsq * rsq)
    proj = proj * cam[6] + np.asarray(cam[7:9])
    return np.concatenate([w * (proj - np.asarray(feat)), [1 - w * w]])


def test_ba_objective_is_written_as_ba_hpp_writes_it():
    response = evaluate(tool(), "ba", "objective", BA_INPUT | RUNS)
    r = ba_residual(BA_INPUT["cam"], BA_INPUT["x"], BA_INPUT["w"], BA_INPUT["feat"])
    assert response["output"] == {
        "reproj_error": {"elements": pytest.approx(r[:2].tolist(), rel=1e-12), "repeated": 10},
        "w_err": {"element": pytest.approx(r[2], rel=1e-12), "repeated": 10}}


def test_ba_jacobian_is_ba_hpp_sparse_mat_rows_cols_and_vals():
    n, m, p = BA_INPUT["n"], BA_INPUT["m"], BA_INPUT["p"]
    output = evaluate(tool(), "ba", "jacobian", BA_INPUT | RUNS)["output"]
    assert set(output) == {"rows", "cols", "vals"}
    assert all(len(output[k]) == 31 for k in output)
    # SparseMat: row starts 0, 15, 30, ... (two rows of 15 per observation, then one per
    # weight): the first 30 and the last (3 p + 1 entries in all, the last 30 p + p)
    starts = [15 * i for i in range(2 * p + 1)] + [30 * p + i for i in range(1, p + 1)]
    assert output["rows"] == starts[:30] + [30 * p + p]
    # observation 0 is camera 0 and point 0: 11 camera, 3 point, 1 weight columns, twice
    first = list(range(11)) + [11 * n + i for i in range(3)] + [11 * n + 3 * m]
    assert output["cols"] == first + first + [11 * n + 3 * m + p - 1]
    # the values: d(reprojection error of observation 0) by central differences of the hand
    # computation, row x then row y, in those columns; the last, d(1 - w^2)/dw = -2 w
    cam, X, w = (np.array(BA_INPUT[k], float) for k in ("cam", "x", "w"))
    z0 = np.concatenate([cam, X, [w]])

    def f(z):
        return ba_residual(z[:11], z[11:14], z[14], BA_INPUT["feat"])[:2]

    columns = []
    for j in range(15):
        h = 1e-6 * max(1.0, abs(z0[j]))
        up, down = z0.copy(), z0.copy()
        up[j] += h
        down[j] -= h
        columns.append((f(up) - f(down)) / (2 * h))
    fd = np.array(columns).T  # (2, 15)
    np.testing.assert_allclose(output["vals"][:30], fd.reshape(-1), rtol=1e-5,
                               atol=1e-6 * np.abs(fd).max())
    assert output["vals"][30] == pytest.approx(-2 * w, rel=1e-12)


# -- ht: GradBench's ht_data sends one row per vertex, per point, per 4x4 row -------------------
def rigid(angle, shift):
    c, s = math.cos(angle), math.sin(angle)
    return [[c, -s, 0.0, shift[0]], [s, c, 0.0, shift[1]], [0.0, 0.0, 1.0, shift[2]],
            [0.0, 0.0, 0.0, 1.0]]


def ht_input():
    """22 bones without parents, bone b's base relative a rotation about z and a shift (not
    symmetric: a transposed read moves every vertex), inverse base absolutes the identity;
    5 vertices, 7 points (no two sizes alike, so a transposed read cannot pass)."""
    rng = np.random.default_rng(7)
    bones, vertices, points = 22, 5, 7
    weights = rng.random((vertices, bones))
    theta = np.zeros(26)
    theta[:3] = [0.1, -0.2, 0.3]
    theta[3:6] = [0.5, -1.0, 0.25]
    return {"theta": theta.tolist(), "us": [],
            "data": {"model": {
                "bone_count": bones, "bone_names": [f"b{i}" for i in range(bones)],
                "parents": [-1] * bones,
                "base_relatives": [rigid(0.1 * b, [0.01 * b, -0.02 * b, 0.03]) for b in
                                   range(bones)],
                "inverse_base_absolutes": [np.eye(4).tolist()] * bones,
                "base_positions": np.hstack([rng.standard_normal((vertices, 3)),
                                             np.ones((vertices, 1))]).tolist(),
                "weights": (weights / weights.sum(axis=1, keepdims=True)).tolist(),
                "triangles": [], "is_mirrored": False},
                "correspondences": rng.integers(0, vertices, points).tolist(),
                "points": rng.standard_normal((points, 3)).tolist()}}


def ht_residual(theta, data):
    """ht.hpp's simple objective at zero finger parameters, by hand: skinned vertex v is
    sum_b weights[v][b] * (base_relative_b @ base_positions[v])[:3], then rotated by the
    global angle-axis theta[:3] and shifted by theta[3:6]; err_i = points[i] - vertex."""
    model = data["model"]
    base = np.array(model["base_positions"])  # (vertices, 4)
    weights = np.array(model["weights"])  # (vertices, bones)
    posed = np.einsum("bij,vj->bvi", np.array(model["base_relatives"]), base)[:, :, :3]
    skinned = np.einsum("vb,bvi->vi", weights, posed)
    r = np.asarray(theta[:3])
    angle = np.linalg.norm(r)
    k = r / angle
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    R = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K
    vertex = skinned @ R.T + np.asarray(theta[3:6])
    return (np.array(data["points"]) - vertex[data["correspondences"]]).reshape(-1)


def test_ht_objective_reads_gradbench_layout():
    data = ht_input()
    output = evaluate(tool(), "ht", "objective", data | RUNS)["output"]
    np.testing.assert_allclose(output, ht_residual(data["theta"], data["data"]), rtol=1e-10,
                               atol=1e-12)


def test_ht_jacobian_reads_gradbench_layout():
    data = ht_input()
    output = evaluate(tool(), "ht", "jacobian", data | RUNS)["output"]
    J = np.array(output)
    assert J.shape == (3 * 7, 26)  # double[][]: one row per residual
    theta = np.array(data["theta"])
    for j in range(6):  # the global columns, by central differences of the hand computation
        up, down = theta.copy(), theta.copy()
        up[j] += 1e-6
        down[j] -= 1e-6
        fd = (ht_residual(up, data["data"]) - ht_residual(down, data["data"])) / 2e-6
        np.testing.assert_allclose(J[:, j], fd, rtol=1e-6, atol=1e-8)


# -- the numba backend: the primal compiled too, compilation outside the timed runs ------------
@pytest.mark.slow  # numba compilations
def test_numba_backend_compiles_the_primal_before_the_timed_runs():
    pytest.importorskip("numba")
    log = io.StringIO()
    t = srcad.gradbench.Tool(common, "numba", log=log)
    data = {"x": [0.5, -1.0, 2.0, 0.25]} | {"min_runs": 3, "min_seconds": 0}
    prepared = t.candidates("lse", "primal")
    assert prepared and prepared[0].numba_build is not None
    response = evaluate(t, "lse", "primal", data)
    x = np.array(data["x"])
    assert response["output"] == pytest.approx(np.log(np.exp(x).sum()), rel=1e-12)
    call, _ = next(iter(t.prepared.values()))
    assert any(type(cell.cell_contents).__name__ == "CPUDispatcher"  # numba's
               for cell in call.__closure__)
    runs = [s["nanoseconds"] for s in response["timings"] if s["name"] == "evaluate"]
    # the compile (seconds) is in "prepare"; no timed run includes it
    assert response["timings"][0]["nanoseconds"] > 100 * max(runs)
    gradient = evaluate(t, "lse", "gradient", data)
    runs = [s["nanoseconds"] for s in gradient["timings"] if s["name"] == "evaluate"]
    assert gradient["timings"][0]["nanoseconds"] > 100 * max(runs)
    assert "CPython" not in log.getvalue()


@pytest.mark.slow
def test_numba_compiled_compiles_the_helpers_a_primal_calls():
    pytest.importorskip("numba")
    from srcad.gradbench.ports import ba

    problem = ba.parse(BA_INPUT)
    compiled = common.numba_compiled(ba.objective)
    np.testing.assert_allclose(compiled(*problem), ba.objective(*problem), rtol=1e-14)
    assert ba.ba_objective.__class__.__name__ == "function"  # the port module is unchanged


def test_the_ports_ship_with_srcad():
    # the tool starts from an installed srcad: no checkout, no --ports
    assert common.__name__ == "srcad.gradbench.ports.common"
    assert set(common.by_name()) >= {"ba", "det", "gmm", "ht", "kmeans", "llsq", "lse", "lstm",
                                     "ode", "particle", "saddle"}


# -- llsq, det, kmeans: inputs as their READMEs define them ------------------------------------
def test_llsq_primal_and_gradient():
    # y(x) = 1/2 sum_i (s_i - sum_j x_j t_i^j)^2, t_i = -1 + 2 i / (n - 1), s_i = sign(t_i);
    # n even: no t_i is 0
    data = {"x": [0.5, -0.25, 1.0, 0.125], "n": 6}
    t = -1 + 2 * np.arange(6) / 5
    V = np.vander(t, 4, increasing=True)
    r = np.sign(t) - V @ np.array(data["x"])
    t_ = tool()
    assert evaluate(t_, "llsq", "primal", data | RUNS)["output"] == pytest.approx(
        0.5 * r @ r, rel=1e-12)
    np.testing.assert_allclose(evaluate(t_, "llsq", "gradient", data | RUNS)["output"],
                               -V.T @ r, rtol=1e-12, atol=1e-14)


def test_det_primal_and_gradient():
    # A row-major, ell x ell; d det(A) / dA = det(A) inv(A)^T, flattened row-major
    A = np.array([[2.0, -1.0, 0.5], [0.25, 3.0, -2.0], [1.0, 0.5, 1.5]])
    data = {"A": A.reshape(-1).tolist(), "ell": 3}
    t = tool()
    assert evaluate(t, "det", "primal", data | RUNS)["output"] == pytest.approx(
        np.linalg.det(A), rel=1e-12)
    np.testing.assert_allclose(evaluate(t, "det", "gradient", data | RUNS)["output"],
                               (np.linalg.det(A) * np.linalg.inv(A).T).reshape(-1),
                               rtol=1e-12)


def test_kmeans_cost_and_dir():
    # cost = sum_i min_j |C_j - P_i|^2; dir = J / diag(H) per centroid = C_j minus the mean
    # of its points (J_j = sum 2 (C_j - P_i), H_jj = 2 count_j)
    points = np.array([[0.0, 0.0], [1.0, 0.2], [4.0, 4.0], [5.0, 3.5], [0.5, -0.5]])
    centroids = np.array([[0.2, 0.1], [4.4, 4.1]])
    data = {"points": points.tolist(), "centroids": centroids.tolist()}
    distances = ((points[:, None, :] - centroids[None]) ** 2).sum(axis=2)
    nearest = distances.argmin(axis=1)
    t = tool()
    assert evaluate(t, "kmeans", "cost", data | RUNS)["output"] == pytest.approx(
        distances.min(axis=1).sum(), rel=1e-12)
    want = [centroids[j] - points[nearest == j].mean(axis=0) for j in range(2)]
    output = evaluate(t, "kmeans", "dir", data | RUNS)["output"]
    assert len(output) == 2 and all(len(row) == 2 for row in output)  # double[][]
    np.testing.assert_allclose(output, want, rtol=1e-12, atol=1e-14)


def test_ode_primal_and_gradient():
    # ode.hpp: y0' = x0, yi' = xi y(i-1), y(0) = 0, s Runge-Kutta steps to t = 2; the gradient
    # is that of the last entry of y(2) with respect to x
    data = {"x": [0.5, -0.25, 1.0, 0.75], "s": 5}

    def solve(x):
        h, y = 2.0 / data["s"], np.zeros(len(x))

        def f(y):
            return np.concatenate([[x[0]], x[1:] * y[:-1]])

        for _ in range(data["s"]):
            k1 = f(y)
            k2 = f(y + h * k1 / 2)
            k3 = f(y + h * k2 / 2)
            k4 = f(y + h * k3)
            y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        return y

    x = np.array(data["x"])
    t = tool()
    np.testing.assert_allclose(evaluate(t, "ode", "primal", data | RUNS)["output"], solve(x),
                               rtol=1e-12)
    fd = [(solve(x + e)[-1] - solve(x - e)[-1]) / 2e-6 for e in 1e-6 * np.eye(len(x))]
    np.testing.assert_allclose(evaluate(t, "ode", "gradient", data | RUNS)["output"], fd,
                               rtol=1e-6)


def ht_complicated_input():
    """ht_input with triangles, correspondences naming triangles and one (u0, u1) pair per
    correspondence (GradBench's "complicated" files: `us` one row per point)."""
    data = ht_input()
    data["data"]["model"]["triangles"] = [[0, 1, 2], [1, 3, 4], [4, 2, 0]]
    data["data"]["correspondences"] = [0, 2, 1, 1, 0, 2, 2]
    data["us"] = [[0.1 * i, 0.5 - 0.05 * i] for i in range(7)]
    return data


def ht_complicated_residual(theta, us, data):
    """ht.hpp's complicated objective: each point against u0 v0 + u1 v1 + (1 - u0 - u1) v2 of
    its triangle's (posed) vertices."""
    triangles = np.array(data["model"]["triangles"])[data["correspondences"]]
    simple = dict(data, correspondences=list(range(len(data["model"]["base_positions"]))),
                  points=np.zeros((len(data["model"]["base_positions"]), 3)).tolist())
    vertices = -ht_residual(theta, simple).reshape(-1, 3)  # posed vertex positions
    us = np.asarray(us).reshape(-1, 2)
    hand = (us[:, :1] * vertices[triangles[:, 0]] + us[:, 1:] * vertices[triangles[:, 1]]
            + (1 - us[:, :1] - us[:, 1:]) * vertices[triangles[:, 2]])
    return (np.array(data["points"]) - hand).reshape(-1)


def test_ht_complicated_inputs_in_gradbench_layout():
    data = ht_complicated_input()
    t = tool()
    output = evaluate(t, "ht", "objective", data | RUNS)["output"]
    np.testing.assert_allclose(output, ht_complicated_residual(data["theta"], data["us"],
                                                               data["data"]), rtol=1e-10)
    J = np.array(evaluate(t, "ht", "jacobian", data | RUNS)["output"])
    assert J.shape == (3 * 7, 2 + 26)  # columns: d/du0 and d/du1 of each row's own pair, theta
    theta, us = np.array(data["theta"]), np.array(data["us"])
    for j in range(2):  # the u columns
        up, down = us.copy(), us.copy()
        up[:, j] += 1e-6
        down[:, j] -= 1e-6
        fd = (ht_complicated_residual(theta, up, data["data"])
              - ht_complicated_residual(theta, down, data["data"])) / 2e-6
        np.testing.assert_allclose(J[:, j], fd, rtol=1e-6, atol=1e-8)
    for j in range(6):  # the global theta columns
        up, down = theta.copy(), theta.copy()
        up[j] += 1e-6
        down[j] -= 1e-6
        fd = (ht_complicated_residual(up, us, data["data"])
              - ht_complicated_residual(down, us, data["data"])) / 2e-6
        np.testing.assert_allclose(J[:, 2 + j], fd, rtol=1e-6, atol=1e-8)
