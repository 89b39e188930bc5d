"""superfluid: one process serving GGUF models over the OpenAI, Anthropic and Ollama HTTP APIs."""

__version__ = "0.1.0"
