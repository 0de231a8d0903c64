# Serves the explorable on port 8000; no test or training extras in the image.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY static ./static
COPY templates ./templates
RUN pip install . && rm -rf /src

RUN useradd --create-home --uid 10001 explorer
USER explorer
WORKDIR /home/explorer
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["attention-explorable", "--host", "0.0.0.0", "--port", "8000"]
