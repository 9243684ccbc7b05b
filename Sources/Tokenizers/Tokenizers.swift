// Tokenizers module.
