"""The speech runtime: Whisper on faster-whisper (CTranslate2), beside the llama.cpp runtime."""
