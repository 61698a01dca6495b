"""The language-consistency gate (issue 29): every demo user in every locale, signed in and
served by a two-worker gunicorn, with invitations mailed in another language between them; on
every page the menus (server-drawn and the menu island's props), the breadcrumb and the
heading are in the page's language, as the catalogue itself says (tests/shell/_language.py).

The bug it guards against: a mail rendered in its recipient's language in a signed-in request
built that user's menus in the mail's language and kept them under the page's language, so
later pages of that user on that worker showed a menu in another language. Each
round's pages go over three connections at once, so both workers answer; the order is shuffled
with a fixed seed. About 420 requests.
"""

import random
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urljoin

import pytest
import requests

from app.core.i18n import LOCALES
from app.demo import DEMO_PASSWORD
from tests.conftest import database_url, make_app
from tests.faults.servers import app_env, gunicorn_node, sqlalchemy_url
from tests.mail._smtp import free_port
from tests.shell._language import language_problems, menu_titles

# Each demo user's pages besides the landing page: /user, a module page, a state list, and an
# administration page for the administrator.
PAGES = {
    "admin@demo.test": ("/user", "/begcare", "/begcare/items/incoming", "/admin/general/countries"),
    "seller@demo.test": ("/user", "/newcare", "/begcare/items/incoming"),
    "buyer@demo.test": ("/user", "/market/dashboard"),
    "station@demo.test": ("/user", "/begcare", "/begcare/items/incoming"),
    "divadmin@demo.test": ("/user", "/newcare", "/newcare/items/list"),
    "global@demo.test": ("/user", "/begcare", "/begcare/items/incoming"),
}
SENDERS = ("seller@demo.test", "admin@demo.test")  # they invite companies, in another language
INVITE_LANGUAGES = ("sv-SE", "en-GB")  # an invitation's languages (app/market/invites.py)


@pytest.fixture(autouse=True)
def _transaction():
    """The served app commits for real in its own database (no rolled-back test transaction)."""
    yield


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """The demo data served by gunicorn with two sync workers on a free port, jobs inline."""
    url = database_url(tmp_path_factory, "language", demo=True)
    app = make_app(url)
    port = free_port()
    env = app_env(sqlalchemy_url(url), None, "language-gate-secret")
    node = gunicorn_node("language", [port], env, tmp_path_factory.mktemp("logs"), workers=2)
    try:
        yield app, f"http://127.0.0.1:{port}"
    finally:
        node.stop()


def sign_in(base: str, email: str) -> tuple[requests.Session, str]:
    """A browser's session signed in through the login call; returns it and its CSRF token."""
    http = requests.Session()
    answer = http.post(
        f"{base}/api/auth/login",
        json={"email": email, "password": DEMO_PASSWORD},
        headers={"Origin": base},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    return http, answer.json()["csrfToken"]


def with_lang(path: str, locale: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}lang={locale}"


def test_every_user_sees_every_page_in_its_own_language(two_workers):
    app, base = two_workers
    rng = random.Random(29)
    problems: list[str] = []
    invited = 0
    for locale in LOCALES:
        titles = menu_titles(app, locale)
        sessions = {email: sign_in(base, email) for email in PAGES}
        # Before any page of this language: invitations mailed in another language, two per
        # sender (whichever worker renders one drew the sender's menus there first).
        other = next(lang for lang in INVITE_LANGUAGES if lang != locale)
        posts = []
        for email in SENDERS:
            http, token = sessions[email]
            for _ in range(2):
                invited += 1
                body = {
                    "csrf_token": token,
                    "company_name": f"Språkbil {invited}",
                    "email": f"inbox{invited}@sprakbil.example",
                    "language": other,
                }
                posts.append((email, http, with_lang("/market/invites", locale), body))

        def invite(job):
            email, http, path, body = job
            answer = http.post(base + path, data=body, timeout=120)
            if answer.history and answer.history[0].status_code == 302:
                return []  # invited; the mail is stored in its own language
            return [f"{email} {path}: not invited ({answer.status_code}) {answer.text[:300]}"]

        for job in posts:  # one after the other: concurrent form writes on SQLite may fail
            problems += invite(job)

        # Every user's pages, twice each, shuffled across users, over three connections.
        fetches = []
        for email, paths in PAGES.items():
            http, _token = sessions[email]
            landing = http.get(with_lang(base + "/", locale), allow_redirects=False, timeout=120)
            assert landing.status_code == 302, (email, landing.status_code)
            start = urljoin(base + "/", landing.headers["Location"]).removeprefix(base)
            fetches += [(email, http, with_lang(p, locale)) for p in (start, *paths)] * 2
        rng.shuffle(fetches)

        def fetch(job, locale=locale, titles=titles):
            email, http, path = job
            answer = http.get(base + path, timeout=120)
            if answer.status_code != 200:
                return [f"{email} {path}: {answer.status_code}"]
            found = language_problems(answer.text, locale, titles)
            return [f"{email} {path}: {p}" for p in found[:3]]

        with ThreadPoolExecutor(3) as pool:
            for found in pool.map(fetch, fetches):
                problems += found
    assert problems == [], f"{len(problems)} problems, the first: {problems[:12]}"


def test_the_gate_reads_foreign_text():
    """The gate's control: a menu title taken from another language's catalogue is found."""
    page = (
        '<html lang="en-GB"><nav class="shell-nav"><li class="nav-item" data-menu-key="my-lists">'
        '<a href="/my-lists"><span class="nav-title">Mine lister</span></a></li></nav>'
        '<nav class="breadcrumb-bar"><a>Start</a></nav><h1 class="page-title">Mitt dashbord</h1>'
    )
    found = language_problems(page, "en-GB", {"my-lists": "My lists"})
    assert "menu my-lists: 'Mine lister', not 'My lists'" in found
    assert "heading: 'Mitt dashbord'" in found
    assert "no menu island props" in found
