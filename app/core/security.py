"""Response headers that every page and call carries, and cookies secure over HTTPS."""

from urllib.parse import urlsplit

from flask import Flask, request
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


def init_app(app: Flask) -> None:
    app.session_interface = SessionInterface()
    csp = content_security_policy(app)

    @app.after_request
    def _headers(response):
        response.headers.setdefault("Content-Security-Policy", csp)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Permissions-Policy"] = "camera=(), microphone=(), geolocation=()"
        if request.is_secure:
            response.headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
        return response
