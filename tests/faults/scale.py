"""Scale-out checks: N gunicorn nodes behind one address, one PostgreSQL and one Redis, and no
per-process truth. Used by the gate (tests/faults/test_scale_out.py) and by
bench/scale_out.py, which adds the load run."""

import json
import re
from dataclasses import dataclass, field

from tests.faults import servers


@dataclass
class Cluster:
    """Where the nodes answer: each on its own port, and all on the shared one."""

    node_ports: dict[str, int]  # node name -> its own port
    shared_port: int
    stack: object = None
    checked: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return list(self.node_ports)


class Browser:
    """One person's cookie jar, sending each request to the node (port) asked for."""

    def __init__(self):
        self.cookie = ""

    def call(self, port: int, method: str, path: str, body=None, headers=None):
        headers = {"Cookie": self.cookie, **(headers or {})} if self.cookie else headers or {}
        status, answer, text = servers.request(port, method, path, body, headers)
        if "Set-Cookie" in answer:
            self.cookie = answer["Set-Cookie"].split(";", 1)[0]
        return status, answer, text

    def sign_in(self, port: int, email: str) -> None:
        self.cookie = ""
        self.cookie = servers.sign_in(port, email)

    def token(self, port: int) -> str:
        return servers.csrf_of(self.call(port, "GET", "/begcare")[2])


def node_of(headers: dict) -> str:
    return headers.get("X-Cc-Node", "?")


def check_one_address_reaches_every_node(cluster: Cluster, connections: int = 24) -> dict:
    """New connections to the shared address, from as many clients (loopback addresses
    127.0.0.2, .3, …), are spread over every node by the kernel."""
    seen: dict[str, int] = {}
    for n in range(connections):
        status, headers, _ = servers.request(
            cluster.shared_port, "GET", "/login", source=f"127.0.0.{n + 2}"
        )
        assert status == 200
        seen[node_of(headers)] = seen.get(node_of(headers), 0) + 1
    assert set(seen) == set(cluster.names()), f"answers per node: {seen}"
    return seen


def check_sessions_hold_across_nodes(cluster: Cluster) -> None:
    """Sign in on one node, use the session on every other; sign out on the last, and the
    session is gone everywhere (server-side sessions, one SECRET_KEY)."""
    first, *others = cluster.names()
    person = Browser()
    person.sign_in(cluster.node_ports[first], servers.SELLER)
    for name in others:
        status, headers, html = person.call(cluster.node_ports[name], "GET", "/begcare")
        assert status == 200 and node_of(headers) == name and "Sara Faultless" in html
    last = cluster.node_ports[(others or [first])[-1]]
    status, _, _ = person.call(
        last, "POST", "/logout", f"csrf_token={person.token(last)}",
        {"Content-Type": "application/x-www-form-urlencoded"},
    )  # fmt: skip
    assert status == 302
    for name, port in cluster.node_ports.items():
        status, headers, _ = person.call(port, "GET", "/begcare")
        assert status == 302 and "/login" in headers["Location"], f"{name} still signed in"


def check_rate_limit_is_shared(cluster: Cluster, limit: int) -> None:
    """A public page's limit per address counts every node's answers (Redis): the request
    after `limit` is refused whichever node gets it."""
    ports = list(cluster.node_ports.values())
    statuses = [
        servers.get(ports[n % len(ports)], "/my-events/calendar/none.ics")[0]
        for n in range(limit + len(ports))
    ]
    assert statuses[:limit] == [404] * limit, statuses
    assert statuses[limit:] == [429] * len(ports), statuses


def check_files_and_caches_hold_across_nodes(cluster: Cluster, item_id: int, data: bytes):
    """A file stored through one node is served by every other; a change made on one node
    (the language) shows on another whose caches were warm."""
    first, *others = cluster.names()
    person = Browser()
    person.sign_in(cluster.node_ports[first], servers.SELLER)
    for name in others:  # warm every other node's caches for this user
        assert person.call(cluster.node_ports[name], "GET", "/begcare")[1]["X-Cc-Language"] == (
            "en-GB"
        )
    port = cluster.node_ports[first]
    body, content_type = servers.multipart(
        {"csrf_token": person.token(port), "title": "Across"},
        {"file": ("across.pdf", data, "application/pdf")},
    )
    status, headers, _ = person.call(
        port, "POST", f"/begcare/items/{item_id}/files", body, {"Content-Type": content_type}
    )
    assert status == 302, status
    status, _, html = person.call(port, "GET", headers["Location"])
    download = re.search(r'href="/file-download/(\d+/across\.pdf)"', html).group(1)
    changed = json.dumps({"language": "sv-SE"})
    status, _, _ = person.call(
        port, "PATCH", "/api/me/options", changed,
        {"Content-Type": "application/json", "X-CSRFToken": person.token(port)},
    )  # fmt: skip
    assert status == 200
    try:
        for name in others:
            other = cluster.node_ports[name]
            status, headers, served = person.call(other, "GET", f"/file-download/{download}")
            while status in (301, 302, 303):
                status, headers, served = person.call(other, "GET", headers["Location"])
            assert status == 200 and served.encode() == data, (name, status, served[:300])
            status, headers, _ = person.call(other, "GET", "/begcare")
            assert headers["X-Cc-Language"] == "sv-SE", f"{name} shows a stale language"
    finally:
        back = json.dumps({"language": "en-GB"})
        person.call(
            port, "PATCH", "/api/me/options", back,
            {"Content-Type": "application/json", "X-CSRFToken": person.token(port)},
        )  # fmt: skip


def check_jobs_run_once_from_any_node(cluster: Cluster, count_mails) -> None:
    """A job queued on each node runs on the shared workers, once."""
    before = count_mails()
    for port in cluster.node_ports.values():
        status, headers, html = servers.get(port, "/login")
        cookie = headers["Set-Cookie"].split(";", 1)[0]
        status, _, _ = servers.request(
            port, "POST", "/api/auth/forgot-password", json.dumps({"email": servers.SELLER}),
            {"Content-Type": "application/json", "Cookie": cookie,
             "X-CSRFToken": servers.csrf_of(html)},
        )  # fmt: skip
        assert status == 200
    servers.wait_for(
        lambda: count_mails() == (before[0] + len(cluster.node_ports), 0),
        servers.STATE_SECONDS,
        "every node's mail job delivered once",
    )


PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
