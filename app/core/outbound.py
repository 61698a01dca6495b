"""The one guard for every call the server makes to an address an administrator typed
(webhooks, data providers): server-side request forgery is refused.

Only http(s) addresses whose host resolves to public addresses pass: every address the host
resolves to is checked, and loopback, private, link-local and reserved ranges are refused unless
the configuration allows their network (WEBHOOK_ALLOWED_NETWORKS, README). Callers do not follow
redirects (a redirect could lead anywhere).
"""

import ipaddress
import socket
from urllib.parse import urlsplit

from flask import current_app


class Refused(ValueError):
    """An address the configuration does not let the server call; the message says why."""


def _allowed_networks() -> list:
    raw = current_app.config.get("WEBHOOK_ALLOWED_NETWORKS") or ""
    return [ipaddress.ip_network(n.strip(), strict=False) for n in raw.split(",") if n.strip()]


def check_url(url: str) -> None:
    """Refuse an address the server may not call (Refused, with the reason): not http(s), no
    host, or a host with any address outside the public internet and the allowed networks."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("only http and https addresses with a host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (OSError, ValueError) as exc:
        raise Refused(f"the host does not resolve ({exc})") from None
    allowed = _allowed_networks()
    for _family, _type, _proto, _name, address in found:
        ip = ipaddress.ip_address(address[0].split("%", 1)[0])
        if ip.is_global or any(ip in network for network in allowed):
            continue
        raise Refused(f"{parts.hostname} resolves to {ip}, which is not a public address")
