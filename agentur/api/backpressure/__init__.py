"""Backpressure: what a worker does when more arrives than it can take — per-tenant limits on
expensive work, waits that end in 429/503 with `Retry-After`, and request body limits."""
