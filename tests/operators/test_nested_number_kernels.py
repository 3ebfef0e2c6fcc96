"""Nested kernels made for their operands' lengths (srcad/operators/nested_number_kernels.py):
g's derivative code compiled into the kernel as numbers, or the general kernel kept."""

import gast

from srcad.operators.nested_kernels import KernelWriter
from srcad.operators.nested_number_kernels import number_kernel, suffix

G = '''@srcad_inlined_jit
def g_reverse(p, p_bar, w, w_bar, result_bar=1.0):
    """doc"""
    t = p[0] * w[0]
    p_bar[0] += unshared(p_bar[0], result_bar * w[0] * p[1])
    p_bar[1] += unshared(p_bar[1], result_bar * t)
    w_bar[0] += unshared(w_bar[0], result_bar * p[0] * p[1])
    return t * p[1], ()
'''


def _general(tapes=()):
    writer = KernelWriter(count=2, floats=(1,), differentiated=[0, 1], argnum=0, vectors=[0])
    return writer.gradient("grad_1", ["o0", "o1"], "g_reverse", list(tapes))


def test_the_kernel_for_two_elements_and_a_number_is_all_numbers():
    body = gast.parse(G).body[0]
    text = number_kernel(_general(), "grad_1" + suffix([2, "s"]), [2, "s"],
                         {"g_reverse": body})
    assert text is not None and "def grad_1_len_2_s(space, int_space, o0, o1):" in text
    assert "buf" not in text and "space[0]" not in text and "np.zeros" not in text
    assert "if o0.shape[0] != 2:" in text  # the operand's length checked on entry
    assert "srcad_g_t = a0_0 * a1_0" in text  # g's code inlined, its names prefixed
    # the gradient filled element by element into a new array, as the general kernel's
    assert "srcad_result_0 = np.empty(2)" in text and "return srcad_result_0" in text


def test_g_code_with_tapes_or_an_early_return_keeps_the_general_kernel():
    body = gast.parse(G).body[0]
    assert number_kernel(_general(["tape"]), "k", [2, "s"], {"g_reverse": body}) is None
    early = gast.parse(G.replace("    t = p[0] * w[0]\n",
                                 "    t = p[0] * w[0]\n    if t > 0:\n        return t, ()\n"))
    assert number_kernel(_general(), "k", [2, "s"], {"g_reverse": early.body[0]}) is None
    whole = G.replace("t = p[0] * w[0]", "t = np.dot(p, p) * w[0]")  # p read whole
    sized = gast.parse(whole).body[0]
    assert number_kernel(_general(), "k", [2, "s"], {"g_reverse": sized}) is None
