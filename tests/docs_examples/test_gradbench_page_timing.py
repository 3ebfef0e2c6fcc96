"""benchmarks/gradbench/run.py's timing rounds: a short call is timed right after an untimed
call of its own (as GradBench's harness repeats a run), a long one is not repeated."""

import io
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.gradbench import run  # noqa: E402
from srcad.gradbench.ports import common  # noqa: E402


def test_short_calls_are_timed_after_an_untimed_call_of_their_own():
    calls = {"fast": 0, "slow": 0}

    def implementation(name, seconds):
        def build(problem):
            def call():
                calls[name] += 1
                time.sleep(seconds)
                return 1.0
            return call
        return common.Implementation("gradient", name, "loops", build)

    port = SimpleNamespace(
        name="fake", input=lambda size: {}, parse=lambda data: data, rtol=1e-9,
        reference={"gradient": lambda problem: 1.0}, error=lambda f, got, want: abs(got - want),
        implementations=(implementation("fast", 0.0), implementation("slow", 2 * run.WARM_BELOW)))
    cells = run.measure_eval(port, "small", rounds=3, budget=60.0, log=io.StringIO(),
                             clock_choice="wall")
    assert [c.status for c in cells] == ["ok", "ok"]
    assert [len(c.samples) for c in cells] == [3, 3]
    # the checked first call, then per round an untimed and a timed call (the slow one: timed)
    assert calls == {"fast": 1 + 2 * 3, "slow": 1 + 3}
