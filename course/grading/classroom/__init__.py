"""Grading a class: `python -m course grade` (`cli.py`, `batch.py`) over the submissions
(`submission.py`), each exercise in a confined worker (`worker_context.py`, `sandbox/`) within its
`budget.py`; the reports it wrote (`report_seals.py`), each student's feedback page (`feedback.py`),
the Gradescope bundle (`gradescope.py`), and exercises/ generated from solutions/ (`assign.py`)."""
