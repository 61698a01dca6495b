"""Issue 34: a mixed load of user journeys (not one URL) with Locust, against gunicorn serving a
database filled by bench/scale_data.py. Not run here (Locust is not installed on this machine
nor in requirements.lock); to run it:

    .venv/bin/pip install locust
    SCALE_DATABASE_URL=postgresql://dealercare:dealercare@127.0.0.1:5432/h_scale_100k \\
        .venv/bin/locust -f bench/locustfile.py --host http://127.0.0.1:5934 --headless \\
        --users 350 --spawn-rate 10 --run-time 10m --csv bench/locust

(with the app served as bench/scale.py serves it, e.g. `DATABASE_URL=... gunicorn -w 4
--bind 127.0.0.1:5934 wsgi:app`). Staff (300 of the 350 users, the scale data's
staff000..299@scale.test and the demo seller) sign in, open the overview, a state list, a
vehicle, the dashboard, and move a vehicle now and then, with think times of 3-10 s; bidders
(50) bid on the adverts that close soonest, a bid every 1-3 s. Locust's report gives the
throughput, p95 per step (each request is named by its step) and the errors.
"""

import os
import random
import re
import uuid

import psycopg
from locust import HttpUser, between, task

STAFF = 300
_BIDS: list[tuple[str, str, str]] = []


def bid_links() -> list[tuple[str, str, str]]:
    """(group hash, advert hash, link hash) of the bidders' links on the open adverts."""
    if not _BIDS:
        url = os.environ["SCALE_DATABASE_URL"].replace("+psycopg", "")
        with psycopg.connect(url) as conn:
            _BIDS.extend(
                conn.execute(
                    "SELECT g.hash, a.hash, l.hash FROM market_link l JOIN advert a ON a.id = l.advert_id"
                    " JOIN instance_group g ON g.id = l.group_id WHERE a.status = 'published'"
                    " AND l.kind = 'bid' ORDER BY a.ends_at LIMIT 100"
                ).fetchall()
            )
    return _BIDS


def csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html) or re.search(
        r'<meta name="csrf-token" content="([^"]+)"', html
    )
    return found.group(1)


class Staff(HttpUser):
    weight = 6  # 300 of 350
    wait_time = between(3, 10)

    def on_start(self):
        n = random.randrange(STAFF)
        email = f"staff{n:03d}@scale.test" if n >= 10 else "seller@demo.test"
        page = self.client.get("/login", name="sign in: form").text
        self.client.post(
            "/login", {"email": email, "password": "demo-pass-1", "csrf_token": csrf(page)},
            name="sign in: post",
        )  # fmt: skip

    @task(4)
    def overview(self):
        self.client.get("/begcare/overview?division=all", name="overview")

    @task(3)
    def state_list(self):
        segment = random.choice(("incoming", "list", "parked", "showroom", "sold"))
        self.client.get(f"/begcare/items/{segment}", name="state list")

    @task(3)
    def vehicle(self):
        regno = f"SC{random.randrange(100_000):07d}"
        self.client.get(f"/begcare/overview?division=all&searchphrase={regno}", name="vehicle")

    @task(2)
    def dashboard(self):
        self.client.get("/begcare/dashboard", name="dashboard")
        self.client.get("/api/me/menu-counts", name="menu counts")

    @task(1)
    def move(self):
        page = self.client.get("/begcare/items/list", name="state list")
        found = re.search(r"/begcare/items/list/(\d+)", page.text)
        if found:
            self.client.post(
                f"/begcare/items/{found.group(1)}/move",
                {"to_state": "5", "csrf_token": csrf(page.text)}, name="state move",
            )  # fmt: skip


class Bidder(HttpUser):
    weight = 1  # 50 of 350
    wait_time = between(1, 3)

    def on_start(self):
        self.group, self.advert, self.link = random.choice(bid_links())
        page = self.client.get(
            f"/market-bid/bid/{self.group}/{self.advert}/{self.link}", name="bid page"
        )
        self.headers = {"X-CSRFToken": csrf(page.text), "Content-Type": "application/json"}
        self.amount = 0

    @task
    def bid(self):
        path = f"/api/_public/market-bid/{self.group}/{self.advert}/{self.link}"
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
