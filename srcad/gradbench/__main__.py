"""`python -m srcad.gradbench`: srcad as a GradBench tool (see srcad.gradbench)."""

from srcad.gradbench.main import main

main()
