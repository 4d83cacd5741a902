"""The AI gateway: the only path from any code to a model.

Callers use `AiService.call`, `AiService.stream` and `AiService.embed`; everything a model sees
passes the neutralization gate there, every call is billed there.
"""
