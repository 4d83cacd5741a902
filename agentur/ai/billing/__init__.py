"""Billing in CHF: price a call, check the mandate can afford its worst case before it
runs, and write one ledger row per call."""
