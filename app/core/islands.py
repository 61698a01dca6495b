"""Jinja side of the React islands: mount elements and the bundle tags from the build manifest."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app, request, send_file, url_for
from markupsafe import Markup, escape

MISSING_MESSAGE = "The island bundles are missing: run `make build`."
EXTENSION_KEY = "islands"


@dataclass(frozen=True)
class Bundle:
    """One read of static/dist/manifest.json."""

    manifest: dict[str, Any]
    version: str


class _State:
    """Per-app cache of the manifest; re-read on every use when the app runs in debug mode."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._bundle: Bundle | None = None
        self.heads: dict[tuple[str, str], Markup] = {}  # island_head() per bundle and root

    def bundle(self, debug: bool) -> Bundle | None:
        """The current manifest, or None while the bundles have not been built."""
        if self._bundle is None or debug:
            self._bundle = _read(self.path)
        return self._bundle


def _read(path: Path) -> Bundle | None:
    """Read and hash the manifest file; None when it does not exist."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    return Bundle(manifest=json.loads(raw), version=hashlib.sha256(raw).hexdigest()[:12])


def _manifest_path(app: Flask) -> Path:
    """Where `npm run build` writes the manifest: <static folder>/dist/manifest.json."""
    return Path(app.static_folder or Path(app.root_path) / "static") / "dist" / "manifest.json"


def _state(app: Flask) -> _State:
    """The app's manifest cache, created on first use if init_app was not called."""
    state = app.extensions.get(EXTENSION_KEY)
    if state is None:
        state = app.extensions[EXTENSION_KEY] = _State(_manifest_path(app))
    return state


def _manifest() -> dict[str, Any]:
    """The current app's manifest; raises RuntimeError when the bundles are missing."""
    bundle = _state(current_app).bundle(current_app.debug)
    if bundle is None:
        raise RuntimeError(MISSING_MESSAGE)
    return bundle.manifest


def bundle_version(app: Flask) -> str:
    """12 hex digits identifying the built bundles (for X-Cc-Version); zeros when unbuilt."""
    bundle = _state(app).bundle(app.debug)
    return bundle.version if bundle else "0" * 12


def _dist_url(path: str) -> str:
    """URL of a file under static/dist."""
    return url_for("static", filename=f"dist/{path}")


def asset_url(logical: str) -> str:
    """URL of a built file by its manifest name ("main.js", "app.css") or dist-relative path."""
    path = _manifest().get(logical, logical)
    if not isinstance(path, str):
        raise KeyError(f"{logical!r} names no single file in the island manifest")
    return _dist_url(path)


def island_head() -> Markup:
    """The stylesheet, module preloads and the page script for <head>: the same for every
    page of one bundle and script root, so built once for them."""
    state = _state(current_app)
    bundle = state.bundle(current_app.debug)
    if bundle is None:
        raise RuntimeError(MISSING_MESSAGE)
    key = (bundle.version, request.script_root)
    head = state.heads.get(key)
    if head is None:
        manifest = bundle.manifest
        tags = [Markup('<link rel="stylesheet" href="{}">').format(_dist_url(manifest["app.css"]))]
        tags += [
            Markup('<link rel="modulepreload" href="{}">').format(_dist_url(chunk))
            for chunk in manifest.get("chunks", [])
        ]
        tags.append(
            Markup('<script type="module" src="{}"></script>').format(
                _dist_url(manifest["main.js"])
            )
        )
        head = Markup("\n").join(tags)
        if len(state.heads) > 8:  # a new bundle (debug) or another root: the old ones are dead
            state.heads.clear()
        state.heads[key] = head
    return head


def page_script_tags(logical: str) -> Markup:
    """A public page's script: module preloads for its static chunks (React's chunk, shared by
    every public page, among them), then the entry, so the browser fetches them all at once."""
    manifest = _manifest()
    tags = [
        Markup('<link rel="modulepreload" href="{}">').format(_dist_url(chunk))
        for chunk in manifest.get("publicChunks", {}).get(logical, [])
    ]
    tags.append(Markup('<script type="module" src="{}"></script>').format(asset_url(logical)))
    return Markup("\n  ").join(tags)


# A built file whose name carries its content hash (esbuild's [name]-[hash]): never changes.
_HASHED = re.compile(r"^dist/(?:.+/)?[^/]+-[A-Z0-9]{8}\.(?:js|css)$")
IMMUTABLE = "public, max-age=31536000, immutable"


def _cache_hashed(response):
    """Hashed bundles are cached for a year and never revalidated; a new build has new names.
    A browser that accepts gzip gets the build's gzipped copy (`<file>.gz`, written beside it)."""
    filename = (request.view_args or {}).get("filename", "")
    if request.endpoint != "static" or response.status_code != 200 or not _HASHED.match(filename):
        return response
    gzipped = Path(current_app.static_folder or "") / f"{filename}.gz"
    if "gzip" in request.accept_encodings and gzipped.is_file():
        mimetype = response.mimetype
        response.close()  # the plain file's handle
        response = send_file(gzipped, mimetype=mimetype, conditional=True, etag=True)
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Cache-Control"] = IMMUTABLE
    response.vary.add("Accept-Encoding")
    return response


class JSONFragment:
    """A prop value encoded once as island() would encode it, for large values that stay the
    same from page to page (the time zone choices): island() splices the text in as is."""

    __slots__ = ("text",)

    def __init__(self, value: Any) -> None:
        self.text = _dumps(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _props_json(props: dict[str, Any]) -> str:
    """`props` as JSON; JSONFragment values at the top level are spliced in already encoded
    (the same text json.dumps writes for the whole dict: keys in order, ", " and ": ")."""
    if not any(type(v) is JSONFragment for v in props.values()):
        return _dumps(props)
    members = (
        f"{_dumps(key)}: {value.text if type(value) is JSONFragment else _dumps(value)}"
        for key, value in props.items()
    )
    return "{" + ", ".join(members) + "}"


def island(name: str, props: dict[str, Any] | None = None, fallback: Any = None) -> Markup:
    """The mount element for island `name`, its props as JSON and `fallback` for no-JS pages."""
    # As Markup(...).format(...) would write it (each value escaped), without its formatter.
    inner = escape(fallback) if fallback is not None else ""
    return Markup(  # noqa: S704 - every value is escaped
        f'<div data-island="{escape(name)}" data-island-props="{escape(_props_json(props or {}))}">'
        f"{inner}</div>"
    )


def init_app(app: Flask) -> None:
    """Read the manifest once and register island(), island_head() and asset_url() in Jinja."""
    state = app.extensions[EXTENSION_KEY] = _State(_manifest_path(app))
    state.bundle(app.debug)
    app.jinja_env.globals.update(
        island=island,
        island_head=island_head,
        asset_url=asset_url,
        page_script_tags=page_script_tags,
    )
    app.after_request(_cache_hashed)
