"""A fuzz run stops on SIGTERM (`timeout`) and reports what it checked, also when the
interruption arrives inside a ctypes callback (numba calls Python back from compiled code),
where the exception its handler raises is printed as "Exception ignored" and lost; and a
program's time limit fires again after such a loss."""

import ctypes
import json
import os
import signal
import time

import checking
import pytest
import run

CALLBACK = ctypes.CFUNCTYPE(None)


def _terminated_inside_a_callback():
    def inside():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)  # the handler runs here, and its exception goes no further
    CALLBACK(inside)()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_run_terminated_inside_a_ctypes_callback_stops_after_that_program(
        monkeypatch, tmp_path):
    calls = []

    def worker(job):
        calls.append(job[0])
        if len(calls) == 2:
            _terminated_inside_a_callback()
        return {"seed": job[0], "category": "agreed", "signature": None, "detail": ""}

    monkeypatch.setattr(run, "_worker", worker)
    monkeypatch.setattr(run, "_TERMINATED", False)
    out = tmp_path / "outcomes.json"
    run.main(["--count", "5", "--jobs", "1", "--no-minimize", "--out", str(tmp_path),
              "--json", str(out)])
    assert calls == [0, 1]
    assert [r["seed"] for r in json.loads(out.read_text())] == [0, 1]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_time_limit_lost_inside_a_ctypes_callback_fires_again(monkeypatch):
    def slow(*args, **kwargs):
        def inside():  # the first alarm comes while Python runs inside the callback
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:
                pass
        CALLBACK(inside)()
        time.sleep(5.0)  # the program goes on: only another alarm stops it

    monkeypatch.setattr(checking, "check_grads", slow)
    with pytest.raises(checking.Timeout):
        checking._check(None, (), 1e-6, 0.2, "fwd")
