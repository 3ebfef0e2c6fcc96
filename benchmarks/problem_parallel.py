"""Problem 7: the mixture gradient on several cores: numba threads (parallel=True) and a Dask
cluster (srcad.dask), with the costs docs/scaling.md builds its model from.

* parallel=True against parallel=False, mixture N=10^6, K=4, numba backend, timed
  interleaved: target <= 0.6x on 2 cores;
* srcad.dask on a local cluster of 2 worker processes against 1: target <= 0.6x;
* for the model: the gradient cost per row of one chunk (numba, in this process), the fixed
  cost of one srcad.dask gradient (tiny chunks) and the extra cost per chunk task.

Every result is checked against parallel=False / the single-process gradient (1e-12 relative,
normwise: max |difference| / max |entry|) before it is timed. Results: suite.extra["parallel"]
as (what, value, unit, note) rows; `markdown_lines(suite)` renders them.
"""

from __future__ import annotations

import importlib.util
from time import process_time, thread_time

import numpy as np
from harness import interleaved_medians, perf_counter, rows_table
from mixture import make_problem, mixture_loglikelihood

S7 = "7. gradients on several cores (parallel=True, srcad.dask)"
TOL = 1e-12


def _relative(a, b):
    """Normwise: the gradient entries are sums of 10^6-10^7 terms that partly cancel, so an
    entry's own relative error grows with the row count whatever the summation order."""
    return float(np.max(np.abs(np.asarray(a) - b)) / np.max(np.abs(b)))


def _median_time(call, repeats):
    times = []
    for _ in range(repeats):
        start = perf_counter()
        call()
        times.append(perf_counter() - start)
    return float(np.median(times))


def _median_cpu(call, repeats, clock=process_time):
    times = []
    for _ in range(repeats):
        start = clock()
        call()
        times.append(clock() - start)
    return float(np.median(times))


def section_parallel(suite, srcad):
    print(f"\n{S7}")
    rows = suite.extra.setdefault("parallel", [])
    if importlib.util.find_spec("numba") is None:
        print("  numba not installed: skipped")
        return
    quick = suite.cfg.quick
    threads(suite, srcad, rows, 10**5 if quick else 10**6)
    if importlib.util.find_spec("distributed") is None:
        print("  distributed not installed: srcad.dask skipped")
        return
    cluster(srcad, rows, 10**6 if quick else 10**7, quick)


def threads(suite, srcad, rows, N):
    import numba

    params, data = make_problem(N, 4)
    serial, parallel = np.zeros_like(params), np.zeros_like(params)
    f, dup, mode = mixture_loglikelihood, srcad.Duplicated, srcad.Reverse

    def run_serial():
        serial.fill(0.0)
        srcad.autodiff(mode, f, dup(params, serial), data, backend="numba")

    def run_parallel():
        parallel.fill(0.0)
        srcad.autodiff(mode, f, dup(params, parallel), data, backend="numba", parallel=True)

    run_serial(), run_parallel()
    error = _relative(parallel, serial)
    case = f"mixture N={N:.0e}, K=4, numba, {numba.get_num_threads()} threads"
    if error > TOL:
        print(f"  {case}: parallel=True DISAGREES ({error:.1e}): not timed")
        rows.append((case + ": parallel=True / parallel=False", None, "x", "disagrees"))
        return
    t_parallel, t_serial = interleaved_medians(run_parallel, run_serial, 5 if suite.cfg.quick
                                               else 21)
    print(f"  {case}: parallel=True {t_parallel * 1e3:.1f} ms, parallel=False "
          f"{t_serial * 1e3:.1f} ms = {t_parallel / t_serial:.2f}x (target <= 0.6x; "
          f"agree to {error:.0e})")
    rows.append((case + ": parallel=True / parallel=False", t_parallel / t_serial, "x",
                 f"{t_parallel * 1e3:.1f} ms / {t_serial * 1e3:.1f} ms, target <= 0.6x"))
    # CPU time, all threads: what the split costs in work, whatever else runs on the machine
    cpu_parallel, cpu_serial = (_median_cpu(run, 9) for run in (run_parallel, run_serial))
    print(f"  CPU time (all threads): parallel=True {cpu_parallel * 1e3:.1f} ms, parallel=False "
          f"{cpu_serial * 1e3:.1f} ms = {cpu_parallel / cpu_serial:.2f}x")
    rows.append((case + ": CPU time, parallel=True / parallel=False", cpu_parallel / cpu_serial,
                 "x", "the work the split adds; on idle cores wall time ~ this / threads"))
    rows.append(("gradient CPU time per row, one thread (numba, K=4)", cpu_serial / N * 1e9,
                 "ns", "c_row of the model"))


def cluster(srcad, rows, N, quick):
    import dask.array as da
    from distributed import Client, LocalCluster

    import srcad.dask

    chunk_rows = N // 8
    params = make_problem(1, 4)[0]
    # the points are generated on the workers (the same points for both cluster sizes)
    generated = da.random.default_rng(42).standard_normal(N, chunks=chunk_rows)
    data = generated.compute()
    expected = np.zeros_like(params)
    srcad.autodiff(srcad.Reverse, mixture_loglikelihood, srcad.Duplicated(params, expected),
                   data, backend="numba")
    repeats = 3 if quick else 7
    times = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as local, Client(local) as client:
            chunked = generated.persist()

            def gradient(x=chunked):
                return srcad.dask.value_and_gradient(mixture_loglikelihood, params, x,
                                                     backend="numba")[1]

            error = _relative(gradient(), expected)  # also compiles (or loads) on the workers
            if error > TOL:
                print(f"  srcad.dask, {workers} worker(s): DISAGREES ({error:.1e})")
                rows.append((f"srcad.dask {workers} worker(s)", None, "ms", "disagrees"))
                return
            times[workers] = _median_time(gradient, repeats)
            print(f"  srcad.dask mixture N={N:.0e}, 8 chunks, {workers} worker(s): "
                  f"{times[workers] * 1e3:.1f} ms per gradient")
            if workers == 2:
                fixed_costs(srcad, rows, client, params, repeats)
    rows.append((f"srcad.dask mixture N={N:.0e}, K=4: 2 workers / 1 worker",
                 times[2] / times[1], "x", f"{times[2] * 1e3:.0f} ms / {times[1] * 1e3:.0f} ms, "
                 "target <= 0.6x"))
    print(f"  2 workers / 1 worker: {times[2] / times[1]:.2f}x (target <= 0.6x)")


def fixed_costs(srcad, rows, client, params, repeats):
    """The fixed cost of one gradient (2 chunks of 10 rows) and the extra cost per chunk task
    (64 chunks of 10 rows against 2): the model's latency and per-task terms."""
    import dask.array as da

    tiny, client_cpu = {}, {}
    for chunks in (2, 64):
        x = da.from_array(make_problem(10 * chunks, 4)[1], chunks=10).persist()

        def gradient(x=x):
            srcad.dask.value_and_gradient(mixture_loglikelihood, params, x, backend="numba")

        gradient()
        tiny[chunks] = _median_time(gradient, repeats)
        # this thread's CPU time: the client's own work (graph, submission, the sum), whatever
        # else runs on the machine; the scheduler's and the workers' run elsewhere
        client_cpu[chunks] = _median_cpu(gradient, repeats, clock=thread_time)
    per_task = (tiny[64] - tiny[2]) / 62
    print(f"  one gradient of 2 tiny chunks: {tiny[2] * 1e3:.1f} ms; per extra chunk task: "
          f"{per_task * 1e3:.2f} ms (2 workers); client CPU time per gradient "
          f"{client_cpu[2] * 1e3:.2f} ms (2 chunks), {client_cpu[64] * 1e3:.2f} ms (64)")
    rows.append(("srcad.dask fixed cost per gradient (2 tiny chunks)", tiny[2] * 1e3, "ms",
                 "latency of the model"))
    rows.append(("srcad.dask cost per extra chunk task (64 against 2 tiny chunks, 2 workers)",
                 per_task * 1e3, "ms", "scheduler cost per task of the model"))
    rows.append(("srcad.dask client CPU time per gradient (64 tiny chunks)", client_cpu[64] * 1e3,
                 "ms", "graph building and submission in the calling thread, load-independent"))


def markdown_lines(suite) -> list:
    # a space between value and unit, as before
    rows = [(w, v, f" {u}", n) for w, v, u, n in suite.extra.get("parallel") or ()]
    return rows_table(S7, rows)
