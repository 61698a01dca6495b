"""Gate 1 (issue 15): schemathesis over the generated OpenAPI document, against the running
application (a real HTTP server on the gates' own database with the demo data; PostgreSQL
where TEST_DATABASE_URL is set), anonymous and signed in as the seller and the administrator.

Every operation of /api/openapi.json, every check of schemathesis (no server error, statuses,
content types, headers and bodies as documented, schema-invalid data refused, schema-valid data
taken, ...) and the gate's own (tests/gates/fuzz_checks.py: a 422 names the refused field).
The request models refuse unknown fields (app/core/api.py), so the document says so and the
fuzzer sends them too. Bounded and repeatable in `make test` (FUZZ_EXAMPLES examples per
operation, a fixed seed, deterministic generation); `make fuzz` runs it with many more.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from sqlalchemy import select

from app.auth.models import User
from app.auth.privileges import reach_of
from app.auth.tokens import make_token
from app.core.models import Instance
from app.core.scopes import every_scope
from app.extensions import db

ROOT = Path(__file__).resolve().parents[2]
CONFIG = Path(__file__).with_name("schemathesis.toml")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "4"))
SEED = int(os.environ.get("FUZZ_SEED", "15"))


def anonymous_headers(url: str, cookie_name: str) -> dict[str, str]:
    """A visitor's session: the cookie and CSRF token of the sign-in page (public calls that
    change something need both)."""
    with requests.Session() as http:
        html = http.get(f"{url}/login", timeout=30).text
        token = re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)
        return {"Cookie": f"{cookie_name}={http.cookies.get(cookie_name)}", "X-CSRFToken": token}


# Who fuzzes which operations: a visitor the public calls (every signed-in call answers a
# visitor 401 before it reads anything); the seller every call, public ones included (an invite
# answers a signed-in user differently); the administrator the signed-in calls, with generated
# data only (the seller's run already walks the document's coverage cases, which are the same
# for every user and the bulk of the time).
WHO = {
    "anonymous": ["--include-by", "/x-public == true"],
    # An API token of Nordbil with every scope and the seller's rights, no cookie: every call
    # that is not public (those a token may not make answer 403, as documented).
    "token": ["--exclude-by", "/x-public == true", "--phases", "examples,fuzzing"],
    "seller@demo.test": [],
    "admin@demo.test": ["--exclude-by", "/x-public == true", "--phases", "examples,fuzzing"],
}


def schemathesis_start(
    url: str, headers: dict[str, str], selection: list[str], examples: int = EXAMPLES
):
    """Start the schemathesis CLI over the document (the operations `selection` keeps)."""
    command = [
        str(Path(sys.executable).with_name("st")),
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        f"{url}/api/openapi.json",
        "--max-examples",
        str(examples),
        "--seed",
        str(SEED),
        "--generation-deterministic",
        # One worker: hypothesis describing strategies in threads trips CPython 3.11's parser
        # ("AST constructor recursion depth mismatch"); the runs go in parallel instead.
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--suppress-health-check",
        "all",
        "--warnings",
        "off",
        # The session travels as a header (below), which schemathesis does not see as the
        # document's cookie: it would count a request "without" it as accepted unsigned.
        "--generation-with-security-parameters",
        "false",
        *selection,
    ]
    for name, value in headers.items():
        command += ["--header", f"{name}: {value}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(  # noqa: S603 - our own tool, our own arguments
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def token_headers(app, email: str) -> dict[str, str]:
    """An API token with every scope and the rights of `email` in their home instance, made by
    that instance's administrator; its rate limit out of the fuzzer's way."""
    app.config["API_TOKEN_RATE_LIMIT"] = "1000000/60"
    with app.app_context():
        person = db.session.scalars(select(User).where(User.email == email)).one()
        maker = db.session.scalars(select(User).where(User.email == "admin@demo.test")).one()
        instance = db.session.get(Instance, person.home_instance_id)
        divisions = [d for d in person.divisions if d.instance_id == instance.id]
        _token, secret = make_token(
            "Fuzz", maker, instance, [s for s, _area, _name in every_scope()],
            reach_of(person, instance.id), divisions,
        )  # fmt: skip
        db.session.commit()
        db.session.remove()
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture(scope="module")
def fuzz_runs(served):
    """who -> the running CLI. On PostgreSQL the three run at once (the server answers them in
    threads); SQLite takes one writer at a time (a second one's transaction fails, "database is
    locked", docs/decisions.md), so there each starts when its test asks for it."""
    cookie = served.app.config["SESSION_COOKIE_NAME"]
    runs = {}

    def start(who: str):
        if who not in runs:
            if who == "anonymous":
                headers = anonymous_headers(served.url, cookie)
            elif who == "token":
                headers = token_headers(served.app, "seller@demo.test")
            else:
                headers = served.signed_in(who)
            runs[who] = schemathesis_start(served.url, headers, WHO[who])
        return runs[who]

    if not served.app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        for who in WHO:
            start(who)
    yield start
    for run in runs.values():
        if run.poll() is None:
            run.kill()
        run.communicate()


@pytest.mark.parametrize("who", list(WHO))
def test_every_call_holds_its_document(fuzz_runs, who):
    run = fuzz_runs(who)
    output, _ = run.communicate(timeout=60 * max(15, EXAMPLES))
    code = run.returncode
    summary = output[output.find("=== FAILURES") :] if "FAILURES" in output else output[-3000:]
    assert code == 0, f"schemathesis as {who} found failures:\n{summary[:12000]}"
    # It ran every operation of the document (none skipped for want of data or a schema error).
    assert "No operations" not in output
