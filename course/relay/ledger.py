"""The relay's ledger: who the students are, what each has spent, and the usage CSV the instructor
reads.

One account per student on the roster. Before a request is forwarded, `admit`
checks the student's budget and request rate; after the upstream answers,
`charge` adds the usage it reported, priced with the course's price table, and
rewrites the CSV (a whole new file swapped in, so a reader never sees half of one).
"""
from __future__ import annotations

import csv
import io
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..api.errors import APIError, retry_headers
from ..pricing import cost_usd

WINDOW = 60.0  # seconds over which the request rate is counted


@dataclass
class Account:
    """One student's usage: the CSV's row."""

    student: str
    requests: int = 0  # forwarded to the upstream
    refused: int = 0  # answered by the relay itself: malformed, over budget, over the rate
    errors: int = 0  # forwarded, and the upstream answered with an error (or not at all)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    usd: float = 0.0
    # when the requests of the last WINDOW were admitted
    recent: deque = field(default_factory=deque, repr=False)


COLUMNS = [f.name for f in fields(Account) if f.name != "recent"]


def read_roster(path: str | Path) -> dict[str, str]:
    """token -> student from a CSV with the header `student,token`; a clear ValueError for a bad
    roster."""
    text = Path(path).read_text(encoding="utf-8-sig")
    rows = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(rows, [])]
    if header != ["student", "token"]:
        raise ValueError(f"{path}: the first line must be the header `student,token`, not "
                         f"{','.join(header)!r}")
    roster: dict[str, str] = {}
    students = set()
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != 2 or not row[0].strip() or not row[1].strip():
            raise ValueError(f"{path}, line {line}: expected `student,token`, both non-empty")
        student, token = row[0].strip(), row[1].strip()
        if token in roster:
            raise ValueError(f"{path}, line {line}: the token of {student!r} is also "
                             f"{roster[token]!r}'s")
        if student in students:
            raise ValueError(f"{path}, line {line}: student {student!r} is listed twice")
        roster[token] = student
        students.add(student)
    if not roster:
        raise ValueError(f"{path}: no students")
    return roster


class Ledger:
    """Accounts, budget and rate limit for the students of a roster; thread-safe."""

    def __init__(self, roster: dict[str, str], budget_usd: float, per_minute: int, path: str | Path,
                 clock: Callable[[], float] = time.monotonic):
        if budget_usd <= 0 or per_minute <= 0:
            raise ValueError("the budget and the rate limit must be positive")
        self.roster = roster
        self.budget_usd = budget_usd
        self.per_minute = per_minute
        self.path = Path(path)
        self.clock = clock
        self.accounts = {student: Account(student) for student in roster.values()}
        self._lock = threading.Lock()  # guards the accounts
        self._save_lock = threading.Lock()  # one writer of the CSV at a time
        # changes to the accounts so far, and how many the CSV holds
        self._changes, self._saved = 1, 0
        self._resume()
        self.save()

    def student(self, token: str) -> str | None:
        return self.roster.get(token)

    def admit(self, student: str) -> APIError | None:
        """None if the student may send this request now (it is counted), else the error to answer
        with."""
        with self._lock:
            account = self.accounts[student]
            error = self._over_budget(account) or self._over_rate(account)
            if error is None:
                account.requests += 1
                account.recent.append(self.clock())
            else:
                account.refused += 1
            self._changes += 1
        if error is not None:
            self.save()  # an admitted request is saved when it is charged
        return error

    def refuse(self, student: str) -> None:
        """A request the relay answered itself (malformed): counted, nothing forwarded."""
        with self._lock:
            self.accounts[student].refused += 1
            self._changes += 1
        self.save()

    def charge(self, student: str, model: str, usage: dict | None, failed: bool = False) -> float:
        """Add what the upstream reported for one forwarded request; the cost in USD."""
        usage = usage or {}
        cost = cost_usd(model, {"input_tokens": 0, "output_tokens": 0, **usage}) if usage else 0.0
        with self._lock:
            account = self.accounts[student]
            account.errors += failed
            account.input_tokens += usage.get("input_tokens") or 0
            account.output_tokens += usage.get("output_tokens") or 0
            account.cache_write_tokens += usage.get("cache_creation_input_tokens") or 0
            account.cache_read_tokens += usage.get("cache_read_input_tokens") or 0
            account.usd += cost
            self._changes += 1
        self.save()
        return cost

    def _over_budget(self, account: Account) -> APIError | None:
        if account.usd < self.budget_usd:
            return None
        return APIError(402, "billing_error",
                        f"{account.student} has spent the workshop budget (${account.usd:.4f} "
                        f"of ${self.budget_usd:.2f}); nothing was sent to the API. Ask the "
                        "instructor.")

    def _over_rate(self, account: Account) -> APIError | None:
        now = self.clock()
        while account.recent and account.recent[0] <= now - WINDOW:
            account.recent.popleft()
        if len(account.recent) < self.per_minute:
            return None
        wait = account.recent[0] + WINDOW - now
        return APIError(429, "rate_limit_error",
                        f"{account.student} sent {self.per_minute} requests in the last "
                        f"minute, the workshop's limit per student; retry in {wait:.1f} s.",
                        retry_headers(wait))

    def save(self) -> None:
        """Rewrite the usage CSV if anything changed since it was last written.

        A new file is swapped in whole (os.replace), so readers never see a partial one;
        writers queue on their own lock, so accounting never waits for the disk.
        """
        with self._save_lock:
            with self._lock:
                if self._saved == self._changes:
                    return  # a save that queued behind ours already wrote this change
                changes = self._changes
                rows = [[getattr(a, c) for c in COLUMNS] for a in self.accounts.values()]
            out = io.StringIO()
            writer = csv.writer(out)
            writer.writerow(COLUMNS + ["budget_usd"])
            writer.writerows(
                row[:-1] + [f"{row[-1]:.6f}", f"{self.budget_usd:.2f}"] for row in rows
            )
            partial = self.path.with_name(self.path.name + ".partial")
            partial.write_text(out.getvalue(), encoding="utf-8")
            os.replace(partial, self.path)
            self._saved = changes

    def _resume(self) -> None:
        """A relay restarted during the workshop carries on from the CSV it wrote before."""
        if not self.path.exists():
            return
        with self.path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                account = self.accounts.get(row.get("student", ""))
                if account is None:
                    continue
                for name in COLUMNS[1:]:
                    setattr(account, name, float(row[name]) if name == "usd" else int(row[name]))
