"""Issue 18, defect 4: behind a reverse proxy the client's own address counts (a configured
number of trusted proxies); sign-in locks are keyed on account and address together, so one
address cannot lock everyone and one account cannot be locked by anyone; the public limit
counts per client address."""

from flask import Flask, request

from app.auth.models import AuthThrottle
from app.auth.services import login_keys
from app.core import ratelimit
from app.core.models import utcnow
from app.core.security import trust_proxies
from app.extensions import db
from tests.conftest import csrf_token
from tests.factories import PASSWORD, make_user

HOME, OFFICE, ATTACKER = "198.51.100.7", "198.51.100.8", "203.0.113.66"


def _failures(key: str, n: int) -> None:
    now = utcnow()
    db.session.add(AuthThrottle(key=key, failures=n, first_failure_at=now, last_failure_at=now))
    db.session.flush()


def _login(client, email, password, address):
    token = csrf_token(client)
    return client.post(
        "/login",
        data={"email": email, "password": password, "csrf_token": token},
        environ_base={"REMOTE_ADDR": address},
    )


def test_one_address_cannot_lock_everyone(app, client):
    """An address that failed on many accounts is slowed (never locked); other addresses and
    the accounts' owners are not touched."""
    user = make_user()
    _failures(login_keys("x@example.test", ATTACKER)["address"], 10_000)
    assert _login(client, user.email, PASSWORD, HOME).status_code == 302
    slowed = _login(app.test_client(), user.email, PASSWORD, ATTACKER)
    assert slowed.status_code == 429
    assert int(slowed.headers["Retry-After"]) <= app.config["LOGIN_THROTTLE"]["address"]["max_wait"]


def test_one_account_cannot_be_locked_by_anyone(app, client):
    """Failures from the attacker's address lock that account only from that address; its
    owner signs in from home; failures from everywhere only slow the account, briefly."""
    user = make_user()
    rule = app.config["LOGIN_THROTTLE"]["pair"]
    keys = login_keys(user.email, ATTACKER)
    _failures(keys["pair"], rule["lock"])  # what `lock` failures from there left behind
    _failures(keys["account"], rule["lock"])
    _failures(keys["address"], rule["lock"])
    locked = _login(app.test_client(), user.email, PASSWORD, ATTACKER)
    assert locked.status_code == 429
    assert int(locked.headers["Retry-After"]) > 60 * (rule["lock_minutes"] - 1)
    # The account-wide count of those failures slows the owner at most briefly.
    first = _login(client, user.email, PASSWORD, HOME)
    if first.status_code == 429:
        assert (
            int(first.headers["Retry-After"]) <= app.config["LOGIN_THROTTLE"]["account"]["max_wait"]
        )
    # Even a huge number of failures from everywhere is never a lock.
    db.session.execute(
        AuthThrottle.__table__.update()
        .where(AuthThrottle.key == login_keys(user.email, HOME)["account"])
        .values(failures=100_000)
    )
    answer = _login(app.test_client(), user.email, PASSWORD, OFFICE)
    assert answer.status_code == 429
    assert int(answer.headers["Retry-After"]) <= app.config["LOGIN_THROTTLE"]["account"]["max_wait"]


def test_the_owner_signs_in_from_home_while_an_address_is_locked_out(app, client):
    user = make_user()
    _failures(login_keys(user.email, ATTACKER)["pair"], 10)
    assert _login(app.test_client(), user.email, PASSWORD, ATTACKER).status_code == 429
    assert _login(client, user.email, PASSWORD, HOME).status_code == 302


def _probe_app(proxies: int) -> Flask:
    probe = Flask("probe")
    probe.config["TRUSTED_PROXIES"] = proxies
    trust_proxies(probe)

    @probe.get("/")
    def where():
        return f"{request.remote_addr} {request.scheme} {request.host}"

    return probe


def test_a_configured_number_of_proxies_is_trusted():
    headers = {
        "X-Forwarded-For": f"{ATTACKER}, {HOME}",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "dealercare.example",
    }
    environ = {"REMOTE_ADDR": "127.0.0.1"}
    untrusted = _probe_app(0).test_client().get("/", headers=headers, environ_base=environ)
    assert untrusted.get_data(as_text=True) == "127.0.0.1 http localhost"
    one = _probe_app(1).test_client().get("/", headers=headers, environ_base=environ)
    # Only the last hop (the address our own proxy saw) is believed, not what the client wrote.
    assert one.get_data(as_text=True) == f"{HOME} https dealercare.example"


def test_the_public_limit_counts_per_client_address(app, client, monkeypatch):
    monkeypatch.setitem(app.config, "PUBLIC_RATE_LIMIT", "2/60")
    monkeypatch.setattr(ratelimit, "_local", {})
    path = "/market-invite/unknown-hash"
    for _ in range(2):
        assert client.get(path, environ_base={"REMOTE_ADDR": HOME}).status_code == 404
    assert client.get(path, environ_base={"REMOTE_ADDR": HOME}).status_code == 429
    assert client.get(path, environ_base={"REMOTE_ADDR": OFFICE}).status_code == 404
