"""Attention Explorable: transformer attention, computed live and drawn in the browser."""
