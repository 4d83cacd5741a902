"""The OpenAI-compatible API at `/openai/v1`: chat completions and models in OpenAI's wire
format, so any OpenAI client (LibreChat, Open WebUI, the `openai` SDK) can use agentur."""
