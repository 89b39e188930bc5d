"""Ollama's routes (openapi/ollama.yaml)."""
