"""llama.cpp in embedding mode: pooled vectors, and the vector arithmetic the embedding routes share."""
