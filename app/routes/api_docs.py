"""/docs: the HTTP API's reference, rendered on the server from the OpenAPI document.

FastAPI's own /docs (Swagger UI) loads its script and style from a CDN and runs an inline script: the page's
Content-Security-Policy blocks both, and the explorable makes no third-party request. This page is plain HTML
that works under that policy and offline; the machine-readable document stays at /openapi.json.
"""

import json
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.routes.pages import get_templates
from app.web.stored_answers import revalidated

router = APIRouter(tags=["pages"])
METHODS = ("get", "post", "put", "patch", "delete")


@dataclass
class Parameter:
    name: str
    where: str
    required: bool
    schema: str
    description: str


@dataclass
class Operation:
    method: str
    path: str
    summary: str
    description: str
    parameters: list[Parameter] = field(default_factory=list)
    body: list[tuple[str, str]] = field(default_factory=list)  # (media type, schema as JSON)
    responses: list[tuple[str, str]] = field(default_factory=list)  # (status, description)


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its top-level $ref followed (one level: enough to read a body's fields)."""
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/schemas/"):
        return dict(document["components"]["schemas"][ref.rsplit("/", 1)[-1]])
    return schema


def describe(schema: dict[str, Any]) -> str:
    """A parameter's schema in one line of JSON: its type and constraints, e.g. `{"type": "integer"}`."""
    shown = {k: v for k, v in schema.items() if k not in ("title", "description")}
    return json.dumps(shown, ensure_ascii=False)


def operations(document: dict[str, Any]) -> list[Operation]:
    """Every operation of the OpenAPI document, in its order, as the page lists them."""
    found = []
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            if method not in item:
                continue
            op = item[method]
            entry = Operation(method.upper(), path, op.get("summary", ""), op.get("description", ""))
            for p in op.get("parameters", []):
                entry.parameters.append(
                    Parameter(
                        p["name"],
                        p["in"],
                        p.get("required", False),
                        describe(resolve(document, p.get("schema", {}))),
                        p.get("description", ""),
                    )
                )
            for media, content in op.get("requestBody", {}).get("content", {}).items():
                schema = resolve(document, content.get("schema", {}))
                entry.body.append((media, json.dumps(schema, indent=2, ensure_ascii=False)))
            for status, response in op.get("responses", {}).items():
                entry.responses.append((status, response.get("description", "")))
            found.append(entry)
    return found


@router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
@revalidated
def api_docs(request: Request, templates: Annotated[Jinja2Templates, Depends(get_templates)]) -> HTMLResponse:
    """Every endpoint, its parameters, body and answers, from the OpenAPI document."""
    document = request.app.openapi()
    context = {"info": document["info"], "openapi": document["openapi"], "operations": operations(document)}
    return templates.TemplateResponse(request, "api_docs.html", context)
