"""The HTTP shell around the explorable: the server, the layers every request passes through, static files,
stored answers, body limits, refusals and where the maths runs. Nothing here knows what attention is."""
