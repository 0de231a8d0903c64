"""Reproducible training commands; optional (PyTorch), never imported by the app."""
