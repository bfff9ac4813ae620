"""The workshop's key relay: one instructor key, a token and a budget per student (`python -m course
relay`)."""
from .ledger import Account, Ledger, read_roster
from .relay import REAL_API, Relay, UsageMeter

__all__ = ["REAL_API", "Account", "Ledger", "Relay", "UsageMeter", "read_roster"]
