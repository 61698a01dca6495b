"""Issue 34: a mixed load of user journeys (not one URL) with Locust (a dev dependency in
requirements.lock), against gunicorn at the production set-up (gunicorn.conf.py: 2 sync workers
per core) serving a database filled by bench/scale_data.py, with Redis. bench/scale_load.py
starts the server, runs this file headless and writes the result into bench/SCALE.md:

    .venv/bin/python bench/scale_load.py --database h_scale_100k --minutes 10

Staff (300 of the 350 users: the scale data's staff010..299@scale.test and the demo seller)
sign in, open the overview, a state list, a vehicle from it, search a regno, the dashboard with
the menu counts, and now and then move a vehicle along one of its state buttons, with think
times of 3-10 s. Bidders (50) bid every 1-3 s on the adverts that close first; at the start of
the run (test_start) the --bid-adverts soonest-closing open adverts are set to close
SCALE_CLOSE_MINUTES into it, so the run goes through a closing time (late bids move the end by
the soft close; a bidder whose advert closed moves on to the next). Each simulated user is a
client address of its own (127.1.x.y in X-Forwarded-For, gunicorn behind TRUSTED_PROXIES=1), as
the public rate limit counts per address. Each request is named by its journey step.
"""

import itertools
import logging
import os
import random
import re
import uuid

import psycopg
from locust import HttpUser, between, events, task

STAFF = 300
VEHICLES = int(os.environ.get("SCALE_VEHICLES", "100000"))
CLOSE_MINUTES = float(os.environ.get("SCALE_CLOSE_MINUTES", "4"))
BID_ADVERTS = int(os.environ.get("SCALE_BID_ADVERTS", "8"))
_ADDRESSES = itertools.count(1)
_OPEN_LINKS = """SELECT g.hash, a.hash, l.hash FROM market_link l JOIN advert a ON a.id = l.advert_id
 JOIN instance_group g ON g.id = l.group_id
 WHERE a.status = 'published' AND l.kind = 'bid' AND a.ends_at > now()
 AND a.id = ANY(%s) ORDER BY a.ends_at, l.id"""
_ADVERTS: list[int] = []
_LOG = logging.getLogger("journeys")
# The refusal of a move pressed on a page older than the vehicle's last move (the staff read
# English: Accept-Language, as they have no language of their own).
MOVED_MEANWHILE = re.compile(r"has been moved to .* by someone else in the meantime")
MOVED_BY_OTHERS: list[str] = []


def _database() -> str:
    return os.environ["SCALE_DATABASE_URL"].replace("+psycopg", "")


@events.test_start.add_listener
def closing_time(environment, **_kwargs):
    """The soonest-closing open adverts close CLOSE_MINUTES into the run (the bench's own
    database: a closing time inside a short run, whatever the hour)."""
    with psycopg.connect(_database()) as conn:
        ids = [
            row[0]
            for row in conn.execute(
                "SELECT a.id FROM advert a WHERE a.status = 'published' AND a.ends_at > now()"
                " AND EXISTS (SELECT 1 FROM market_link l WHERE l.advert_id = a.id"
                " AND l.kind = 'bid') ORDER BY a.ends_at, a.id LIMIT %s",
                (BID_ADVERTS * 2,),
            )
        ]
        first, later = ids[:BID_ADVERTS], ids[BID_ADVERTS:]
        conn.execute(
            "UPDATE advert SET ends_at = now() + make_interval(secs => %s) WHERE id = ANY(%s)",
            (CLOSE_MINUTES * 60, first),
        )
        conn.execute(  # the next ones close later in the run, for the bidders to move on to
            "UPDATE advert SET ends_at = now() + make_interval(secs => %s) WHERE id = ANY(%s)",
            (CLOSE_MINUTES * 120, later),
        )
    _ADVERTS[:] = ids


def open_links() -> list[tuple[str, str, str]]:
    """(group hash, advert hash, link hash) of the bidders' links on the adverts still open."""
    with psycopg.connect(_database()) as conn:
        return conn.execute(_OPEN_LINKS, (_ADVERTS,)).fetchall()


def _refusal(html: str) -> str | None:
    """The error the page shows (a flashed danger alert), its digits as # (to count alike)."""
    found = re.search(r'<div class="alert alert-danger"[^>]*>(.*?)</div>', html, re.S)
    return re.sub(r"\d+", "#", found.group(1).strip()) if found else None


def csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html) or re.search(
        r'<meta name="csrf-token" content="([^"]+)"', html
    )
    return found.group(1)


class Client(HttpUser):
    abstract = True

    def on_start(self):
        n = next(_ADDRESSES)
        self.client.headers["X-Forwarded-For"] = f"127.1.{n // 250}.{n % 250 + 1}"
        self.client.headers["Accept-Language"] = "en-GB"


class Staff(Client):
    weight = 6  # 300 of 350
    wait_time = between(3, 10)

    def on_start(self):
        super().on_start()
        n = random.randrange(STAFF)
        email = f"staff{n:03d}@scale.test" if n >= 10 else "seller@demo.test"
        page = self.client.get("/login", name="sign in: form").text
        with self.client.post(
            "/login", {"email": email, "password": "demo-pass-1", "csrf_token": csrf(page)},
            name="sign in: post", catch_response=True,
        ) as answer:  # fmt: skip
            if "/login" in answer.url:
                answer.failure(f"{email} not signed in")

    def _get(self, path: str, name: str):
        with self.client.get(path, name=name, catch_response=True) as answer:
            if "/login" in answer.url:
                answer.failure("signed out")
            return answer

    @task(4)
    def overview(self):
        self._get("/begcare/overview?division=all", "overview")

    @task(3)
    def state_list(self):
        segment = random.choice(("incoming", "list", "parked", "showroom", "sold"))
        self._get(f"/begcare/items/{segment}", "state list")

    @task(2)
    def search(self):
        regno = f"SC{random.randrange(VEHICLES):07d}"
        self._get(f"/begcare/overview?division=all&searchphrase={regno}", "search")

    def _vehicle(self):
        """A vehicle from a state list, as a user opens it; its page or None."""
        segment = random.choice(("incoming", "list", "showroom"))
        page = self._get(f"/begcare/items/{segment}", "state list").text
        found = re.findall(rf'href="(/begcare/items/{segment}/\d+/[a-z-]+)"', page)
        return self._get(random.choice(found), "vehicle") if found else None

    @task(3)
    def vehicle(self):
        self._vehicle()

    @task(2)
    def dashboard(self):
        self._get("/begcare/dashboard", "dashboard")
        self._get("/api/me/menu-counts", "menu counts")

    @task(1)
    def move(self):
        page = self._vehicle()
        if page is None:
            return
        forms = []
        for block in re.findall(
            r'<form method="post" action="[^"]+/move".*?</form>', page.text, re.S
        ):
            fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', block))
            if fields["to_state"] != "9" and "salesperson_id" not in block:  # no archive, no sale
                forms.append((re.search(r'action="([^"]+)"', block).group(1), fields))
        if not forms:
            return
        action, fields = random.choice(forms)  # the form as the page has it (its from_state)
        with self.client.post(action, fields, name="state move", catch_response=True) as answer:
            if "/login" in answer.url:
                answer.failure(f"signed out (answer {answer.status_code})")
            elif (refusal := _refusal(answer.text)) is None:
                return
            elif MOVED_MEANWHILE.search(refusal):
                # Another user moved this vehicle after our page was drawn (under saturation
                # pages are long in coming): the product's answer, not an error.
                MOVED_BY_OTHERS.append(action)
                answer.success()
            else:
                _LOG.warning("move %s with %s refused: %s", action, fields, refusal)
                answer.failure(f"move refused: {refusal}")


@events.test_stop.add_listener
def moved_meanwhile(environment, **_kwargs):
    print(f"state moves answered 'moved by someone else in the meantime': {len(MOVED_BY_OTHERS)}")


class Bidder(Client):
    weight = 1  # 50 of 350
    wait_time = between(1, 3)

    def on_start(self):
        super().on_start()
        self._open()

    def _open(self):
        links = open_links()
        self.link = random.choice(links[:BID_ADVERTS * 2]) if links else None  # fmt: skip
        if self.link is None:
            return
        group, advert, link = self.link
        page = self.client.get(f"/market-bid/bid/{group}/{advert}/{link}", name="bid page")
        self.headers = {"X-CSRFToken": csrf(page.text), "Content-Type": "application/json"}
        self.amount = 1000  # too low: the answer tells the next minimum

    @task
    def bid(self):
        if self.link is None:
            return
        path = "/api/_public/market-bid/" + "/".join(self.link)
        with self.client.post(
            path, json={"bid": self.amount, "requestKey": uuid.uuid4().hex}, headers=self.headers,
            name="bid", catch_response=True,
        ) as answer:  # fmt: skip
            body = (
                answer.json()
                if answer.headers.get("Content-Type", "").startswith("application/json")
                else {}
            )
            self.amount = body.get("nextBid") or self.amount + 1000
            if answer.status_code == 422 and body.get("error") == "BID_TOO_LOW":
                answer.success()  # another bidder was first: the next minimum is in the answer
            elif answer.status_code == 422 and body.get("error") == "BIDDING_CLOSED":
                answer.success()  # the advert closed: on to the next one that is open
                self._open()
