"""Workflows: conversation containers whose messages agent runs and assistants persist."""
