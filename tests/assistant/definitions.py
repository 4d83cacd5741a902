"""A shop assistant definition shared by the assistant tests."""

from __future__ import annotations

from typing import Any

RETURNS_ANSWER = "You can return any item within 30 days. Use the return label in the parcel."


def shop_definition(**overrides: Any) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "name": "Shop helper",
        "instructions": "You help visitors of the Example shop.",
        "languages": ["en", "de"],
        "faqs": [
            {
                "id": "returns",
                "question": "How can I return an item?",
                "variants": ["Can I send something back?", "Wie kann ich etwas zurücksenden?"],
                "keywords": ["return", "refund", "zurücksenden"],
                "answer": RETURNS_ANSWER,
            }
        ],
        "flows": [
            {
                "id": "order_status",
                "name": "Order status wizard",
                "trigger_examples": ["Where is my order?", "track my parcel"],
                "keywords": ["order status", "track"],
                "steps": [
                    {"kind": "say", "id": "hello", "text": "Let's find your order."},
                    {
                        "kind": "ask",
                        "id": "number",
                        "prompt": "What is your order number?",
                        "variable": "order",
                        "validation": {"kind": "regex", "pattern": "[0-9]{5}"},
                        "error_message": "Order numbers have five digits.",
                    },
                    {
                        "kind": "choice",
                        "id": "contact",
                        "prompt": "How should we notify you?",
                        "variable": "channel",
                        "options": [
                            {"label": "E-mail", "value": "email"},
                            {"label": "Phone", "value": "phone", "next_step": "desk"},
                        ],
                    },
                    {
                        "kind": "say",
                        "id": "done",
                        "text": "Order {order}: we will write via {channel}.",
                    },
                    {"kind": "handoff", "id": "desk", "help_desk": "support"},
                ],
            }
        ],
        "help_desks": [
            {
                "id": "support",
                "name": "Customer support",
                "description": "Orders, returns and payments",
                "options": [
                    {"kind": "email", "label": "E-mail", "address": "support@example.test"},
                    {
                        "kind": "phone",
                        "label": "Phone",
                        "address": "+41 44 000 00 00",
                        "hours": {"timezone": "Europe/Zurich", "days": {"mon": ["08:00-17:00"]}},
                    },
                    {"kind": "chat", "label": "Live chat", "address": "queue-1"},
                ],
            }
        ],
    }
    definition.update(overrides)
    return definition


KNOWLEDGE_DOC = """# Shipping guide

## Delivery times

Parcels within Switzerland arrive in two working days. International parcels take
five to eight working days, depending on customs.

## Packaging

We pack fragile goods in recycled cardboard with paper padding.
"""
