"""Judging an exercise: the reference is the oracle (`oracle.py`) on generated cases (`cases.py`),
the lessons' checks (`checks/`), the known mistakes behind hints (`mistakes/`), the reference
solutions (`reference.py`) and their saved harness runs (`saved_outcomes.py`), the exercises the
grader knows (`registry.py`), and check() in the student's kernel (`notebook_context.py`)."""
