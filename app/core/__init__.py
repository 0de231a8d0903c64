"""The numpy maths behind the explorable: attention, masks, heads and diagnostics, with no web code."""
