"""Smoke tests of the workshop benchmarks: tiny sizes, well-formed figures (no timing asserted)."""
from __future__ import annotations

from bench import relay


def test_the_relay_load_test_reconciles_the_csv_with_the_upstream(monkeypatch):
    monkeypatch.setattr(relay, "PAIRS", 2)
    monkeypatch.setattr(relay, "THINK", 0.05)
    figures = relay.bench_relay(students=3)
    assert figures["reconciled"] == {"upstream_relayed": 9, "csv_requests": 9, "uncounted": 0,
                                     "double_counted": 0,
                                     "token_mismatches": 0, "usd_mismatches": 0}
    assert (
        figures["ms"]["relay"]["n"] == figures["ms"]["added"]["n"] == 6
        and figures["failure_count"] == 0
    )
    accounting = next(v for k,
                      v in figures["targets"].items() if k.startswith("every relayed request"))
    assert accounting is True
    assert "| through the relay | 6 |" in relay.table(figures)
