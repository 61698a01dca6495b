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


def schemathesis_run(url: str, headers: dict[str, str], examples: int = EXAMPLES):
    """Run the schemathesis CLI over the whole document; return (exit code, output)."""
    command = [
        str(Path(sys.executable).with_name("st")),
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        f"{url}/api/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(examples),
        "--seed",
        str(SEED),
        "--generation-deterministic",
        "--workers",
        "2",
        "--request-timeout",
        "30",
        "--suppress-health-check",
        "all",
        "--warnings",
        "off",
    ]
    for name, value in headers.items():
        command += ["--header", f"{name}: {value}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(  # noqa: S603 - our own tool, our own arguments
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("who", ["anonymous", "seller@demo.test", "admin@demo.test"])
def test_every_call_holds_its_document(served, who):
    cookie = served.app.config["SESSION_COOKIE_NAME"]
    headers = anonymous_headers(served.url, cookie) if who == "anonymous" else served.signed_in(who)
    code, output = schemathesis_run(served.url, headers)
    summary = output[output.find("=== FAILURES") :] if "FAILURES" in output else output[-3000:]
    assert code == 0, f"schemathesis as {who} found failures:\n{summary[:12000]}"
    # It ran every operation of the document (none skipped for want of data or a schema error).
    assert "No operations" not in output
