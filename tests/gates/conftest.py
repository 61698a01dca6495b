"""The gates' served application: the demo data in a database of its own, on a free local port.

Like tests/browser's live server, it commits for real (the fuzzer changes what it may), so the
gates do not use the rolled-back transaction of tests/conftest.py.
"""

from dataclasses import dataclass

import pytest
import requests
from flask import Flask

from app.demo import DEMO_PASSWORD
from tests.browser.conftest import serving
from tests.conftest import database_url, make_app


@dataclass
class Served:
    app: Flask
    url: str

    def signed_in(self, email: str) -> dict[str, str]:
        """Sign `email` in through the API as the login modal does; return the headers that
        carry the session: its cookie and its CSRF token."""
        with requests.Session() as http:
            answer = http.post(
                f"{self.url}/api/auth/login",
                json={"email": email, "password": DEMO_PASSWORD},
                headers={"Origin": self.url},
                timeout=30,
            )
            assert answer.status_code == 200, answer.text
            cookie = http.cookies.get(self.app.config["SESSION_COOKIE_NAME"])
            return {
                "Cookie": f"{self.app.config['SESSION_COOKIE_NAME']}={cookie}",
                "X-CSRFToken": answer.json()["csrfToken"],
            }


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    """The application as served (errors are answers, not exceptions), with the demo data, on
    TEST_DATABASE_URL's database suffixed _gates (or a SQLite file)."""
    app = make_app(database_url(tmp_path_factory, "gates", demo=True))
    app.config["TESTING"] = False
    with serving(app) as url:
        yield Served(app=app, url=url)
