"""Response headers that every page and call carries, cookies secure over HTTPS, and no NUL
characters in what a request sends."""

from urllib.parse import urlsplit

from flask import Flask, abort, request
from flask.sessions import SecureCookieSessionInterface


class SessionInterface(SecureCookieSessionInterface):
    """Mark the session cookie Secure whenever the request came over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


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


def refuse_nul() -> None:
    """No one types a NUL character, and PostgreSQL cannot compare text that holds one: a path
    with one names nothing (404), a query or form with one cannot be read (400)."""
    path_values = [(k, v) for k, v in (request.view_args or {}).items() if isinstance(v, str)]
    if _holds_nul(path_values):
        abort(404)
    if _holds_nul(request.args.items(multi=True)) or _holds_nul(request.form.items(multi=True)):
        abort(400)


def init_app(app: Flask) -> None:
    app.session_interface = SessionInterface()
    app.before_request(refuse_nul)
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
        if request.is_secure:
            response.headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
        return response
