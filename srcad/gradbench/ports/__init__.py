"""Python ports of the GradBench evals, the functions srcad's GradBench tool answers with
(benchmarks/gradbench/README.md describes them; `common.py` their shared interface).

Each module transliterates one eval's C++ primal as a Python user would write it and offers
srcad's derivative of it, a reference (JAX or NumPy by hand), and the eval's input and output
layout. They ship with srcad so that `python -m srcad.gradbench` runs from an installed srcad.
The ports import srcad's public API only; JAX and autograd are imported where a reference or a
comparison needs them, and a missing one is reported, not required.
"""
