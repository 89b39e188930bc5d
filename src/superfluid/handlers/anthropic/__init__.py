"""Anthropic's Messages routes (openapi/anthropic.yaml)."""
