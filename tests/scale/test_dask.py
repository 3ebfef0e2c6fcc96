"""srcad.dask: value and gradient of a sum over the rows of a dask.array, chunk by chunk on
the worker processes of a Dask cluster, equal to the single-process gradient."""

import helpers.row_sum_problems as problems
import numpy as np
import pytest

import srcad

pytest.importorskip("distributed")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402

import srcad.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """One cluster of two worker processes for the module (they import row_sum_problems and
    mixture by name: a worker process starts with this process's sys.path)."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def relative(a, b):
    return np.max(np.abs(np.asarray(a) - b) / np.maximum(np.abs(b), 1e-300))


def single_process(f, params, data):
    grad = np.zeros_like(params)
    _, value = srcad.autodiff(srcad.ReverseWithPrimal, f, srcad.Duplicated(params, grad), data)
    return value, grad


def test_mixture_on_two_worker_processes_equals_one_process(client):
    params, data = problems.make_problem(5003, 3)
    chunked = da.from_array(data, chunks=700)  # 8 chunks: two levels of the reduction tree
    value, grad = srcad.dask.value_and_gradient(problems.mixture_loglikelihood, params,
                                                chunked)
    expected_value, expected = single_process(problems.mixture_loglikelihood, params, data)
    assert relative(grad, expected) < 1e-12 and relative(value, expected_value) < 1e-12
    assert relative(grad, problems.mixture_gradient_numpy(params, data)) < 1e-10
    ran_on = client.run(lambda: __import__("sys").modules.get("mixture") is not None)
    assert all(ran_on.values())  # both workers computed chunks
    # scipy's form: params -> gradient
    gradient = srcad.dask.grad(problems.mixture_loglikelihood, chunked)
    assert relative(gradient(params), expected) < 1e-12


def test_rows_of_a_matrix_chunked_both_ways(client):
    rng = np.random.default_rng(3)
    X, p = rng.standard_normal((300, 4)), rng.standard_normal(4)
    chunked = da.from_array(X, chunks=(64, 2))  # columns are joined back into whole rows
    value, grad = srcad.dask.value_and_gradient(problems.hinge_rows, p, chunked)
    assert relative(grad, problems.hinge_rows_gradient(p, X)) < 1e-12
    assert relative(value, problems.hinge_rows(p, X)) < 1e-12


def test_without_a_client_the_local_scheduler_computes_it(client):
    params, data = problems.make_problem(400, 2)
    with dask.config.set(scheduler="sync"):
        value, grad = srcad.dask.value_and_gradient(problems.mixture_loglikelihood, params,
                                                    da.from_array(data, chunks=150))
    assert relative(grad, single_process(problems.mixture_loglikelihood, params, data)[1]) \
        < 1e-12


def test_refusals(client):
    data = da.ones(10, chunks=5)
    with pytest.raises(srcad.SrcadError, match="loop-carried dependence"):
        srcad.dask.value_and_gradient(problems.carried, np.ones(1), data)

    def local(p, x):
        total = 0.0
        for n in range(len(x)):
            total += p[0] * x[n]
        return total

    with pytest.raises(srcad.ArgumentError, match="not importable"):
        srcad.dask.value_and_gradient(local, np.ones(1), data)
    with pytest.raises(srcad.ArgumentError, match="data the second argument"):
        srcad.dask.value_and_gradient(problems.power_sums, np.ones(1), data, np.ones(3))


class ScheduledTasks:
    """A scheduler plugin that records the key of every task the scheduler hands a worker."""

    name = "srcad-test-scheduled-tasks"

    def __init__(self):
        self.keys = []

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "processing":
            self.keys.append(key)


def scheduled_tasks(client, call):
    """call()'s result and the keys of the tasks it ran on the cluster (wait for a persist()
    first: it runs its tasks in the background)."""
    from distributed.diagnostics.plugin import SchedulerPlugin

    plugin = type("Recorder", (ScheduledTasks, SchedulerPlugin), {})()
    client.register_plugin(plugin)
    try:
        result = call()
        keys = client.run_on_scheduler(
            lambda dask_scheduler: list(dask_scheduler.plugins[ScheduledTasks.name].keys))
    finally:
        client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.remove_plugin(
            name=ScheduledTasks.name))
    return result, keys


def test_persisted_data_runs_one_task_per_chunk_and_adds_on_the_client(client):
    params, data = problems.make_problem(4000, 3)
    persisted = da.from_array(data, chunks=500).persist()  # 8 chunks on the two workers
    wait(persisted)
    (value, grad), keys = scheduled_tasks(client, lambda: srcad.dask.value_and_gradient(
        problems.mixture_loglikelihood, params, persisted))
    expected_value, expected = single_process(problems.mixture_loglikelihood, params, data)
    assert relative(grad, expected) < 1e-12 and relative(value, expected_value) < 1e-12
    assert len(keys) == 8  # the chunk tasks: no task recomputes data, none adds partials
    assert all(dask.utils.key_split(key) == "srcad-chunk" for key in keys)


def test_repeated_gradients_follow_new_params_and_new_data(client):
    params, data = problems.make_problem(3000, 2)
    evaluate = srcad.dask.value_and_grad(problems.mixture_loglikelihood,
                                         da.from_array(data, chunks=400).persist())
    f = problems.mixture_loglikelihood
    for shift in (0.0, 0.25, -0.5):
        moved = params + shift * np.linspace(0.1, 0.3, len(params))
        assert relative(evaluate(moved)[1], single_process(f, moved, data)[1]) < 1e-12
    other = data[::-1] * 1.5 + 0.25  # the same shape and chunks, other values
    value, grad = srcad.dask.value_and_gradient(f, params,
                                                da.from_array(other, chunks=400).persist())
    expected_value, expected = single_process(f, params, other)
    assert relative(grad, expected) < 1e-12 and relative(value, expected_value) < 1e-12
    assert relative(evaluate(params)[1], single_process(f, params, data)[1]) < 1e-12


def test_large_partial_results_are_added_on_the_workers(client, monkeypatch):
    import srcad.scale.dask_tasks

    monkeypatch.setattr(srcad.scale.dask_tasks, "GATHERED_FLOATS", 0)
    params, data = problems.make_problem(2000, 2)
    persisted = da.from_array(data, chunks=100).persist()  # 20 chunks: 3 additions, then 1
    wait(persisted)
    (value, grad), keys = scheduled_tasks(client, lambda: srcad.dask.value_and_gradient(
        problems.mixture_loglikelihood, params, persisted))
    expected_value, expected = single_process(problems.mixture_loglikelihood, params, data)
    assert relative(grad, expected) < 1e-12 and relative(value, expected_value) < 1e-12
    assert sorted(dask.utils.key_split(key) for key in keys) == \
        ["add_partials"] * 4 + ["srcad-chunk"] * 20


@pytest.mark.parametrize("persist", [True, False])
def test_contexts_reach_every_chunk(client, persist):
    x, p, scale = np.linspace(-1.0, 2.0, 301), np.array([0.3, -0.7]), np.array([2.5])
    chunked = da.from_array(x, chunks=50)
    value, grad = srcad.dask.value_and_gradient(problems.scaled_squares, p,
                                                chunked.persist() if persist else chunked, scale)
    assert relative(grad, problems.scaled_squares_gradient(p, x, scale)) < 1e-12
    assert relative(value, problems.scaled_squares(p, x, scale)) < 1e-12


def test_a_gradient_on_a_client_counts_its_chunks_on_a_progress_bar(client, monkeypatch):
    from srcad.build import progress

    made = []

    class Bar:
        def __init__(self, total, what, done):
            self.total, self.what, self.done, self.closed = total, what, done, False
            made.append(self)

        def update(self, count):
            self.done += count

        def close(self):
            self.closed = True

    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)  # no timing: the bar shows at once
    monkeypatch.setattr(progress, "make_bar", Bar)
    monkeypatch.setenv("SRCAD_PROGRESS", "1")
    params, data = problems.make_problem(600, 2)
    chunked = da.from_array(data, chunks=100).persist()  # 6 chunks on the client
    wait(chunked)
    srcad.dask.value_and_gradient(problems.mixture_loglikelihood, params, chunked)
    assert [(b.total, b.done, b.closed) for b in made] == [(6, 6, True)]
    assert "srcad.dask chunks" in made[0].what
    monkeypatch.setenv("SRCAD_PROGRESS", "0")  # silenced: no bar
    srcad.dask.value_and_gradient(problems.mixture_loglikelihood, params, chunked)
    assert len(made) == 1
