"""srcad's GradBench tool on messages recorded from GradBench's own eval code (ba's `parse` of
its data file, ht's `read_hand_instance` of its small hand models), each judged as the eval
judges it: GradBench's `compare_json_objects` against the output GradBench's C++ reference tool
gave for the same input (recorded with benchmarks/gradbench/record_messages.py). The ports'
own generator plays no part."""

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from tests.helpers.gradbench_exchange import RUNS, evaluate, tool

ROOT = Path(__file__).resolve().parents[2]
# GradBench's comparison.py by its path (numpy only), not its package on sys.path: the name
# `gradbench` must not shadow anything else the test process imports
_spec = importlib.util.spec_from_file_location(
    "gradbench_comparison",
    ROOT / "third_party" / "gradbench" / "python" / "gradbench" / "gradbench" / "comparison.py")
_comparison = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_comparison)
compare_json_objects = _comparison.compare_json_objects

RECORDED = Path(__file__).parent / "gradbench_recorded"


def recorded(module):
    with gzip.open(RECORDED / f"{module}.json.gz", "rt") as file:
        records = json.load(file)
    # a jacobian transforms the whole residual function: seconds on a loaded machine
    return [pytest.param(r, id=f"{r['message']['function']}-{r['message']['description']}",
                         marks=[pytest.mark.slow] if r["message"]["function"] == "jacobian"
                         else [])
            for r in records]


@pytest.mark.parametrize("record", recorded("ba") + recorded("ht"))
def test_gradbench_recorded_message_is_answered_as_the_cpp_reference_answers(record):
    message = record["message"]
    response = evaluate(tool("python"), message["module"], message["function"],
                        message["input"] | RUNS)
    mismatches = compare_json_objects(record["reference_output"], response["output"])
    assert mismatches == []


def test_a_wrong_answer_is_a_mismatch_for_gradbench_comparison():
    """The comparison is not vacuous: ht's objective with one residual moved is caught."""
    record = next(r.values[0] for r in recorded("ht")
                  if r.values[0]["message"]["function"] == "objective")
    wrong = list(record["reference_output"])
    wrong[3] += 1e-2
    assert compare_json_objects(record["reference_output"], wrong)
