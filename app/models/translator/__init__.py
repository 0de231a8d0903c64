"""Figure 5's translator, run in numpy: an encoder-decoder Transformer that writes French one token at a time.

- ``words``: the English vocabulary, the words it does not know (with known words to suggest) and the
  refusal of a sentence it cannot honestly translate;
- ``network``: the network as written (encoder, decoder step, whole-prefix pass) and greedy decoding;
- ``fast_decoder``: the same arithmetic with as few numpy calls as it allows, which serving runs;
- ``steps``: what decoding gives back, a step at a time;
- ``omissions``: the check for content words that no step read;
- ``committed``: the committed weights and training record, loaded once per process.

Weights come from ``training/train_translator.py``; see ``app/weights/README.md``.
"""
