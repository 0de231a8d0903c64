"""HTTP routes, one module per concept; each parses, calls a pure function and shapes the answer."""
