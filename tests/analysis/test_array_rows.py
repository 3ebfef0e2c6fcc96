"""Rows of one array told apart (analysis/array_rows.py): rows whose indices differ by a
constant are apart; a row kept from earlier iterations of `for i in range(...)` meets the
row of this one only if some number of steps (at least one) makes the indices equal."""

import gast

from srcad.analysis.array_rows import FRESH, UNKNOWN, may_overlap, rebound, row_part


def part(text):
    return row_part(gast.parse(text).body[0].value)


def test_rows_of_one_iteration():
    assert not may_overlap(part("2 * i"), part("2 * i + 1"))
    assert may_overlap(part("2 * i"), part("i + i"))
    assert may_overlap(part("2 * i"), part("j"))  # other names: may meet
    assert may_overlap(part("i"), None) and may_overlap(part("i"), UNKNOWN)
    assert part("idx[0]") == UNKNOWN


def test_rows_kept_across_steps_of_the_loop_variable():
    kept = rebound(part("2 * i"), {"i"}, "i")
    assert kept[1] == ("stepped", "i")
    assert not may_overlap(kept, part("2 * i")) and not may_overlap(kept, part("2 * i + 1"))
    assert may_overlap(rebound(part("t"), {"t"}, "t"), part("t - 1"))  # one step back
    assert may_overlap(rebound(part("t"), {"t"}, "t"), part("t - 2"))
    assert not may_overlap(rebound(part("t"), {"t"}, "t"), part("t + 1"))


def test_rows_gone_stale_otherwise_may_meet_anything():
    assert rebound(part("2 * i"), {"i"}, None)[1] == UNKNOWN
    assert rebound(part("i + j"), {"i", "j"}, "i")[1] == UNKNOWN
    assert rebound(part("2 * i"), {"k"}, "k")[1] == FRESH
    assert may_overlap(rebound(part("2 * i"), {"i"}, None), part("2 * i + 1"))
