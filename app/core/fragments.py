"""Rendered parts of pages that are the same for every request with the same key but for the
CSRF token (a pristine form, the overview's filter form for its arguments, an item table's
header row): rendered once per process and key (the 1,024 last used are kept), the request's
token put in after. Off while templates reload (debug), so that an edited template shows at
once."""

from collections.abc import Callable

from flask import current_app
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from app.core.cache import LRUCache

_MARK = "\x1ecsrf\x1e"
_RENDERED = LRUCache(1024)


def with_csrf(key: tuple, render: Callable[[], str]) -> Markup:
    """`render()`'s output, kept under `key` (which must hold everything the output depends
    on besides the request's CSRF token: locale, script root, ...)."""
    token = generate_csrf()
    if current_app.debug or current_app.jinja_env.auto_reload:
        return Markup(render())  # noqa: S704 - our template's output
    html = _RENDERED.get(key)
    if html is None:
        html = str(render()).replace(token, _MARK)
        _RENDERED.put(key, html)
    return Markup(html.replace(_MARK, token))  # noqa: S704 - our template's output
