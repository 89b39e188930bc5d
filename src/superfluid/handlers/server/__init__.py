"""The server's own routes in llama-server's manner (openapi/openai.yaml): health, props, slots, metrics,
tokenize, rerank, LoRA adapters, and loading or unloading models."""
