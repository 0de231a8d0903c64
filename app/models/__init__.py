"""Sentence analysis, the built-in lexicon and the attention heads that read them."""
