"""The engine: the only package that imports llama_cpp.

Rooms: ``model_sources`` resolves model references to files, ``llama_model`` loads a GGUF and owns its
llama.cpp context, ``chat_template`` renders prompts, ``sampling`` builds per-lane sampler chains,
``text_output`` turns tokens into text (stop strings, reasoning split), ``scheduler`` runs the lanes on one
engine thread, and ``registry`` is what the HTTP layer talks to.
"""
