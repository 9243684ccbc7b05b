// GGUF module.
