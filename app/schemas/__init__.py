"""Request and response models of the HTTP API, one module per route group (app/routes/), named by direction;
limits live in the fields. Importers name the module they need: app.schemas.translate, app.schemas.common."""
