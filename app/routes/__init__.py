"""HTTP routes, one module per concept; each parses, calls a pure function and shapes the answer.

A route is handed what it needs by app/deps.py (settings, cache, models, the reader's sentence), lets any
Refusal propagate (app/web/errors.py answers it), and declares ``response_model`` only where it returns the
answer already serialised (a Response of JSON bytes); otherwise its return type is the answer's schema.
"""
