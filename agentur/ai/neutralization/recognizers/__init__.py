"""One module per kind of personal data; `agentur.ai.neutralization.registry` lists them."""
