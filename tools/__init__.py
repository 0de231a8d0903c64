"""Commands that build or check what the explorable ships, run by hand, by the Dockerfile or by tests; not
part of the server."""
