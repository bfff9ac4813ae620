"""Marks and how they are written: one Mark per check (`mark.py`), a report of them (`report.py`:
text, HTML, results.json, CSV) and a student's text shown, never obeyed (`printable.py`)."""
