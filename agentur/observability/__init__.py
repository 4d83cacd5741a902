"""Observability: Prometheus metric objects and OpenTelemetry spans at the few central points
(HTTP middleware, agent run and round, tool lifecycle, gateway call and charge, indexer,
search). Protocol-free: this part imports no other agentur part, so every part may use it."""
