"""OpenAI's routes (openapi/openai.yaml): chat and text completions, models, embeddings, audio, files, batches and
the Responses API (its own package)."""
