"""srcad's GradBench tool against messages in GradBench's own layout: each input below is
written from the eval's spec (evals/<name>/README.md and cpp/gradbench/evals/<name>.hpp of
GradBench), small, never made by the ports' generators; each reply is checked against the
output format the eval's reference tool writes and against a computation written here by hand
in NumPy from the spec (not the ports' code)."""

import math

import numpy as np
import pytest

from tests.helpers.gradbench_exchange import RUNS, evaluate, tool

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
