"""Record messages in GradBench's own layout for the adapter's tests: the inputs built by
GradBench's own eval code (ba's `parse` of its data file, ht's `io.read_hand_instance`) and
the outputs of GradBench's C++ reference tool for them. Writes
tests/docs_examples/gradbench_recorded/<eval>.json.gz; rerun after updating the vendored copy.

    python benchmarks/gradbench/record_messages.py   (needs pydantic, g++, nlohmann's header)

ba's input keeps GradBench's layout but a small replication count (n=3 cameras, m=5 points,
p=12 observations instead of ba1's 49, 7776, 31843) so that the test computes in a second.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness_setup as setup  # noqa: E402

OUT = setup.ROOT / "tests" / "docs_examples" / "gradbench_recorded"


def record() -> None:
    setup.build_reference(("ba", "ht"))
    sys.path.insert(0, str(setup.GRADBENCH_PYTHON))
    os.chdir(setup.BUILD)  # GradBench's code reads evals/... and runs tools/manual/bin/...
    from gradbench import cpp
    from gradbench.evals.ba.run import parse
    from gradbench.evals.ht import io

    ba_file = next(Path("evals/ba/data").glob("ba1_*.txt"))
    ba_input = parse(ba_file) | {"n": 3, "m": 5, "p": 12}
    cases = {"ba": [(ba_file.stem + " (n=3, m=5, p=12)", ba_input)], "ht": []}
    for variant in ("simple", "complicated"):
        data = Path(f"evals/ht/data/{variant}_small")
        hand = next(data.glob("hand1_*.txt"))
        instance = io.read_hand_instance(data / "model", hand, variant == "complicated")
        cases["ht"].append((f"{variant}_small/{hand.stem}", instance.to_dict()))
    functions = {"ba": ("objective", "jacobian"), "ht": ("objective", "jacobian")}
    OUT.mkdir(parents=True, exist_ok=True)
    for module, inputs in cases.items():
        records = []
        for description, data in inputs:
            for function in functions[module]:
                reference = cpp.evaluate(tool="manual", module=module, function=function,
                                         input=data | {"min_runs": 1, "min_seconds": 0})
                assert reference["success"], reference
                records.append({"message": {"kind": "evaluate", "module": module,
                                            "function": function, "input": data,
                                            "description": description},
                                "reference_output": reference["output"]})
        with gzip.open(OUT / f"{module}.json.gz", "wt") as file:
            json.dump(records, file)
        print(f"wrote {OUT / f'{module}.json.gz'}", file=sys.stderr)


if __name__ == "__main__":
    record()
