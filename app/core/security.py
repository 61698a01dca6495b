"""Response headers that every page and call carries, cookies secure over HTTPS, no NUL
characters in what a request sends, a JSON decoder that refuses what it cannot read (400),
path integers within the column's range, and the trusted reverse proxies."""

from urllib.parse import urlsplit

from flask import Flask, abort, g, request
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter, PathConverter

from app.core.numbers import INT32_MAX

# No request body of this application nests deeper than a few levels.
JSON_MAX_DEPTH = 32


def _too_deep(value) -> bool:
    """Whether a decoded value nests deeper than JSON_MAX_DEPTH (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > JSON_MAX_DEPTH:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, except that every decoder failure is a ValueError, which Flask answers
    with 400: a document nested so deep that the decoder runs out of stack (RecursionError)
    or deeper than any call reads."""

    def loads(self, s, **kwargs):
        try:
            value = super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deep") from None
        if _too_deep(value):
            raise ValueError("JSON nested too deep")
        return value


class BoundedIntConverter(IntegerConverter):
    """`<int:…>` in a route: ASCII digits within an Integer column's range; a larger number
    names nothing (404) instead of overflowing the database's integer."""

    def __init__(self, map, fixed_digits=0, min=None, max=INT32_MAX, signed=False):  # noqa: A002
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)
        if max == INT32_MAX and not signed and not fixed_digits:
            # The range lives in the pattern: a number beyond it then matches no rule of any
            # method (404); refused only by `to_python`, the path still matched the rules of
            # the other methods and answered 405.
            self.regex = _up_to(str(INT32_MAX))


def _up_to(limit: str) -> str:
    """A pattern of the ASCII numbers from 0 to `limit` (leading zeros allowed)."""
    shorter = f"[0-9]{{1,{len(limit) - 1}}}"
    same_length = []
    for i, digit in enumerate(limit):
        if digit != "0":
            rest = len(limit) - i - 1
            tail = f"[0-9]{{{rest}}}" if rest else ""
            same_length.append(f"{limit[:i]}[0-{int(digit) - 1}]{tail}")
    same_length.append(limit)
    return f"0*(?:{shorter}|{'|'.join(same_length)})"


class SessionInterface(SecureCookieSessionInterface):
    """Mark the session cookie Secure whenever the request came over HTTPS; a stateless call
    (made with an API token, `g.stateless`) is answered without one."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)

    def save_session(self, app: Flask, session, response) -> None:
        if g.get("stateless"):
            return
        super().save_session(app, session, response)


def content_security_policy(app: Flask) -> str:
    """Return the CSP: no inline scripts; the chat widget's origin only when configured."""
    script_src = ["'self'"]
    if chat := app.config.get("CHAT_WIDGET_URL"):
        parts = urlsplit(chat)
        script_src.append(f"{parts.scheme}://{parts.netloc}")
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {' '.join(script_src)}",
            "style-src 'self'",
            "img-src 'self' data: blob:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


def _holds_nul(pairs) -> bool:
    return any("\x00" in key or "\x00" in value for key, value in pairs)


def _nameless(pairs) -> bool:
    """A multipart part without a name is read as a None key, which nothing can look up."""
    return any(not isinstance(key, str) or not isinstance(value, str) for key, value in pairs)


def refuse_nul() -> None:
    """No one types a NUL character, and PostgreSQL cannot compare text that holds one: a path
    with one names nothing (404), a query or form with one (or a form part without a name)
    cannot be read (400)."""
    path_values = [(k, v) for k, v in (request.view_args or {}).items() if isinstance(v, str)]
    if _holds_nul(path_values):
        abort(404)
    form = list(request.form.items(multi=True))
    if _nameless(form) or _holds_nul(request.args.items(multi=True)) or _holds_nul(form):
        abort(400)


class PageConverter(PathConverter):
    """`<page:…>`: any path but one under /api/, for catch-all pages. Under /api/ an unknown
    path is a JSON 404, and a known one's 405 lists only the methods it has (Allow)."""

    regex = r"(?!api/)[^/].*?"


def trust_proxies(app: Flask) -> None:
    """Behind TRUSTED_PROXIES reverse proxies, read the client's address, scheme and host from
    the X-Forwarded-* headers that many proxies set (README, "Deployment"). With 0 (the
    default) the headers are ignored: anyone could send them."""
    count = int(app.config.get("TRUSTED_PROXIES") or 0)
    if count > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=count, x_proto=count, x_host=count, x_port=count
        )


def init_app(app: Flask) -> None:
    app.json = JSONProvider(app)
    app.url_map.converters["int"] = BoundedIntConverter
    app.url_map.converters["page"] = PageConverter
    trust_proxies(app)
    app.session_interface = SessionInterface()
    # First of all hooks: the CSRF check reads the form too (and fails on a nameless part).
    app.before_request_funcs.setdefault(None, []).insert(0, refuse_nul)
    csp = content_security_policy(app)

    @app.after_request
    def _headers(response):
        response.headers.setdefault("Content-Security-Policy", csp)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Permissions-Policy"] = "camera=(), microphone=(), geolocation=()"
        if response.mimetype == "text/html":
            # Pages carry personal data and kept form input: never stored by caches.
            response.headers.setdefault("Cache-Control", "no-store")
        elif (
            response.mimetype == "application/json"
            and request.path.startswith("/api/")
            and request.path != "/api/openapi.json"
        ):
            # Signed-in answers and public-link answers alike are someone's data; only the
            # published API document may be kept.
            response.headers["Cache-Control"] = "no-store"
        if request.is_secure:
            response.headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
        return response
