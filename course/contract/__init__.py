"""The contract between a student's function and whoever calls it, below the views and grading,
which share it.

- `exercise.py`: an Exercise is a list of Checks over an Outcome; the markers a call's arguments may
  hold.
- `call.py`: one call of the student's function, from the trusted side (a fresh API and tools, its
  Outcome): the one harness of check(), the grader's worker and the loop explorer.
- `child.py`: the student's side of a call, a standalone script (in the notebook's process, or in
  the sandbox).
"""
