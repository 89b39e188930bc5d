"""OpenAI's Responses API: reading items into an engine request, the stream renderer, and the stored responses."""
