"""Racing bookings of one slot, through real parallel requests and database connections (not
the rolled-back test transaction): exactly one wins, every other is told the time was just
booked, on SQLite (a file database) and, with TEST_DATABASE_URL, on PostgreSQL. The control
takes the services' own check away: the database's unique slot still lets only one through."""

import itertools
import sys
import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from app.auth.models import User
from app.bookings import services as svc
from app.bookings.models import Booking
from app.extensions import db
from app.mail.models import EmailMessage
from tests.bookings.conftest import make_shop
from tests.conftest import database_url, make_app
from tests.helpers import page_text, sign_in

THREADS = 12
SLOT = datetime(2027, 3, 26, 8, 0, tzinfo=UTC)  # 09:00 in Stockholm
_TAGS = itertools.count()


@pytest.fixture(autouse=True)
def _transaction():
    """These tests commit for real on their own database (replaces tests/conftest.py's)."""
    yield


@pytest.fixture(scope="module")
def race_app(tmp_path_factory):
    options = {"pool_pre_ping": True, "pool_size": THREADS + 4, "max_overflow": 0}
    return make_app(database_url(tmp_path_factory, "bookrace"), SQLALCHEMY_ENGINE_OPTIONS=options)


def _clerks(app):
    """A fresh shop, and one signed-in browser session (client, CSRF token) per thread."""
    with app.app_context():
        shop = make_shop(f"race{next(_TAGS)}")
        db.session.commit()
        user = db.session.get(User, shop.user_id)
        clients = []
        for _n in range(THREADS):
            client = app.test_client()
            clients.append((client, sign_in(client, user)))
            db.session.commit()
        db.session.remove()
    return shop, clients


def _race(app, shop, clients) -> list:
    barrier, answers, lock = threading.Barrier(THREADS), [], threading.Lock()
    path = f"/bookings/vehicles/{shop.items['SE']}/new?day=2027-03-26"

    def book(n: int) -> None:
        client, token = clients[n]
        data = {
            "csrf_token": token, "kind": "test_drive", "slot": SLOT.isoformat(),
            "customer_name": f"Customer {n}", "customer_email": f"c{n}@example.test",
        }  # fmt: skip
        barrier.wait()
        answer = client.post(path, data=data)
        with lock:
            answers.append(answer)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    try:
        workers = [threading.Thread(target=book, args=(n,)) for n in range(THREADS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(interval)
    return answers


def _outcome(app, answers, shop) -> tuple[int, int, int]:
    won = [a for a in answers if a.status_code == 302]
    told = [a for a in answers if a.status_code == 422 and "This time has just been booked." in page_text(a)]  # fmt: skip
    with app.app_context():
        held = db.session.scalar(
            select(func.count())
            .select_from(Booking)
            .where(Booking.item_id == shop.items["SE"], Booking.held_start == SLOT)
            .execution_options(all_instances=True)
        )
        mails = db.session.scalar(
            select(func.count())
            .select_from(EmailMessage)
            .where(EmailMessage.kind == "booking_booked", EmailMessage.instance_id == shop.instance_id)
        )  # fmt: skip
        db.session.remove()
    assert len(won) + len(told) == THREADS, [a.status_code for a in answers]
    return len(won), held, mails


def test_racing_bookings_of_one_slot_exactly_one_wins(race_app):
    shop, clients = _clerks(race_app)
    won, held, mails = _outcome(race_app, _race(race_app, shop, clients), shop)
    assert (won, held, mails) == (1, 1, 1)


def test_control_without_the_services_check_the_database_still_lets_one_through(
    race_app, monkeypatch
):
    """Every request is let past the check of taken slots: only the unique slot decides."""
    monkeypatch.setattr(svc, "taken_starts", lambda *args: set())
    shop, clients = _clerks(race_app)
    won, held, mails = _outcome(race_app, _race(race_app, shop, clients), shop)
    assert (won, held, mails) == (1, 1, 1)
