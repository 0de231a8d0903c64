"""/static: every file under an address that names its content (``?v=``), kept by browsers for a year at that
address and revalidated at any other; imports between modules versioned the same way; gzip made once, with
an ETag of its own; a 304 on a matching If-None-Match; and the files written out for nginx."""

import gzip
import posixpath
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.web.static_files import IMMUTABLE, REVALIDATE, SPECIFIER, StaticSite, get_static_site
from tools.static import write

PATHS = (
    "css/main.css",
    "css/figures/heads-dial.css",
    "js/main.js",
    "js/lib/svg.js",
)
PLAIN = {"accept-encoding": "identity"}
GZIP = {"accept-encoding": "gzip"}


def on_disk(path: str) -> bytes:
    return (get_settings().static_dir / path).read_bytes()


def served(path: str) -> bytes:
    """The file as served: the bytes on disk, with the versions written into a module's imports."""
    return get_static_site().assets[path].body


def unversioned(body: bytes) -> bytes:
    return re.sub(rb"\?v=[0-9a-f]{12}", b"", body)


def test_the_page_names_every_static_file_by_its_version(client: TestClient) -> None:
    page = client.get("/").text
    addresses = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert addresses and all(re.fullmatch(r"/static/[\w/.-]+\?v=[0-9a-f]{12}", a) for a in addresses)
    for address in addresses:
        response = client.get(address)
        assert response.status_code == 200, address
        assert response.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"


@pytest.mark.parametrize("encoding", [PLAIN, GZIP])
def test_a_file_asked_for_without_its_version_is_revalidated(client: TestClient, encoding: dict) -> None:
    for path in PATHS:
        for query in ("", "?v=000000000000"):
            response = client.get(f"/static/{path}{query}", headers=encoding)
            assert response.status_code == 200, path
            assert response.headers["etag"].startswith('"'), path
            assert response.headers["cache-control"] == REVALIDATE == "no-cache"
            assert response.content == served(path)  # httpx undoes the gzip


def test_only_imports_change_between_disk_and_wire() -> None:
    site = get_static_site()
    for path in PATHS:
        assert unversioned(served(path)) == on_disk(path)
    main = served("js/main.js").decode()
    imports = re.findall(r"""(["'])(\.{1,2}/[^"']+?\.js)\?v=([0-9a-f]{12})\1""", main)
    assert len(imports) >= 4  # its static imports (a figure's module comes by its address in the page data)
    for _, target, version in imports:
        assert version == site.assets[posixpath.normpath(posixpath.join("js", target))].version


def test_no_module_imports_another_without_its_version() -> None:
    for path, asset in get_static_site().assets.items():
        if path.endswith(".js"):
            assert not SPECIFIER.search(asset.body.decode()), path


def test_preloads_and_refresh(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "leaf.js").write_text("export const x = 1;\n")
    (tmp_path / "lib" / "middle.js").write_text('export { x } from "./leaf.js";\n')
    lines = [
        'import { x } from "./lib/middle.js";',
        'import("./other.js");',
        'new URL("./data.json", import.meta.url);',
    ]
    (tmp_path / "main.js").write_text("\n".join(lines))
    (tmp_path / "data.json").write_text("{}")
    (tmp_path / "other.js").write_text("export default 2;\n")
    site = StaticSite(tmp_path, refresh_seconds=0)
    # what main.js needs before it runs: its static imports, not what it may fetch or import later
    assert site.preloads("main.js") == [site.url("lib/middle.js"), site.url("lib/leaf.js")]
    middle = site.assets["lib/middle.js"].version
    assert f'from "./lib/middle.js?v={middle}"' in site.assets["main.js"].body.decode()
    assert (
        f'new URL("./data.json?v={site.assets["data.json"].version}"' in site.assets["main.js"].body.decode()
    )
    before = site.assets["main.js"].version
    assert not site.refresh()
    (tmp_path / "lib" / "leaf.js").write_text("export const x = 1000;\n")
    assert site.refresh()
    assert site.assets["main.js"].version != before
    assert site.assets["main.js"].version == StaticSite(tmp_path).assets["main.js"].version
    (tmp_path / "main.js").write_text("export {};")
    site.refresh_seconds = 3600
    assert not site.refresh()  # not looked at again within the interval


def test_versions_follow_the_import_graph(tmp_path: Path) -> None:
    (tmp_path / "leaf.js").write_text("export const x = 1;\n")
    (tmp_path / "user.js").write_text('import { x } from "./leaf.js";\n')
    (tmp_path / "other.js").write_text("export const y = 1;\n")
    first = {p: a.version for p, a in StaticSite(tmp_path).assets.items()}
    (tmp_path / "leaf.js").write_text("export const x = 2;\n")
    second = {p: a.version for p, a in StaticSite(tmp_path).assets.items()}
    assert first["leaf.js"] != second["leaf.js"]
    assert first["user.js"] != second["user.js"]  # its import changed, so its address does
    assert first["other.js"] == second["other.js"]  # untouched: readers keep it


def test_an_import_of_a_missing_module_fails_at_start(tmp_path: Path) -> None:
    (tmp_path / "main.js").write_text('import { x } from "./gone.js";\n')
    with pytest.raises(FileNotFoundError, match="gone.js"):
        StaticSite(tmp_path)


@pytest.mark.parametrize("encoding", [PLAIN, GZIP])
def test_a_matching_etag_gets_a_304_without_a_body(client: TestClient, encoding: dict) -> None:
    for path in PATHS:
        etag = client.get(f"/static/{path}", headers=encoding).headers["etag"]
        for sent in (etag, f"W/{etag}", f'"other", {etag}'):
            response = client.get(f"/static/{path}", headers={**encoding, "if-none-match": sent})
            assert response.status_code == 304, (path, sent)
            assert response.content == b""
            assert response.headers["etag"] == etag
            assert response.headers["cache-control"] == "no-cache"


def test_a_changed_etag_gets_the_file(client: TestClient) -> None:
    response = client.get(f"/static/{PATHS[0]}", headers={"if-none-match": '"not-the-etag"'})
    assert response.status_code == 200 and response.content


def test_text_files_are_gzipped_for_clients_that_take_gzip(client: TestClient) -> None:
    for path in PATHS:
        plain = client.get(f"/static/{path}", headers=PLAIN)
        zipped = client.get(f"/static/{path}", headers=GZIP)
        assert "content-encoding" not in plain.headers
        assert zipped.headers["content-encoding"] == "gzip"
        assert plain.headers["vary"] == zipped.headers["vary"] == "Accept-Encoding"
        assert zipped.headers["content-type"] == plain.headers["content-type"]
        # two representations, two ETags: a cache must not answer one's If-None-Match with the other
        assert zipped.headers["etag"] == plain.headers["etag"][:-1] + '-gzip"'
        assert int(zipped.headers["content-length"]) < len(plain.content)
        # the plain ETag does not validate the gzipped representation
        stale = client.get(f"/static/{path}", headers={**GZIP, "if-none-match": plain.headers["etag"]})
        assert stale.status_code == 200


def test_the_gzipped_bytes_are_the_file(client: TestClient) -> None:
    with client.stream("GET", f"/static/{PATHS[0]}", headers=GZIP) as response:
        raw = b"".join(response.iter_raw())
    assert gzip.decompress(raw) == served(PATHS[0])


@pytest.mark.parametrize("accept", ["gzip;q=0", "br", "identity", ""])
def test_no_gzip_unless_asked(client: TestClient, accept: str) -> None:
    response = client.get(f"/static/{PATHS[0]}", headers={"accept-encoding": accept})
    assert response.status_code == 200 and "content-encoding" not in response.headers


def test_a_range_request_gets_the_whole_file(client: TestClient) -> None:
    response = client.get(f"/static/{PATHS[0]}", headers={**PLAIN, "range": "bytes=0-9"})
    assert response.status_code == 200
    assert response.content == served(PATHS[0])


def test_head_missing_files_and_other_methods(client: TestClient) -> None:
    head = client.head(f"/static/{PATHS[0]}", headers=GZIP)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-encoding"] == "gzip"
    for missing in ("/static/js/nowhere.js", "/static/js/", "/static/../app/main.py", "/static/js/%2e%2e/x"):
        response = client.get(missing)
        assert response.status_code == 404 and response.json() == {"detail": "Not Found"}, missing
    post = client.post(f"/static/{PATHS[0]}")
    assert post.status_code == 405 and post.headers["allow"] == "GET, HEAD"
    assert post.json() == {"detail": "Method Not Allowed"}


def test_the_files_for_nginx_are_the_files_served(tmp_path: Path) -> None:
    site = get_static_site()
    written = write(site, tmp_path / "out")
    tmp_path = tmp_path / "out"
    zipped = [a for a in site.assets.values() if a.gzipped is not None]
    assert written == len(site.assets) + len(zipped) and zipped
    for path, asset in site.assets.items():
        assert (tmp_path / path).read_bytes() == asset.body
        if asset.gzipped is not None:
            assert gzip.decompress((tmp_path / f"{path}.gz").read_bytes()) == asset.body
