"""Two people press the same state button of the same vehicle at the same moment (found while
looking into the Locust run's refused state moves, issue 34): the vehicle moves once, with one
history entry and the counters moved once; one of them reads that it moved, the others that
someone else moved it. Before, each of them moved it, silently: as many history entries, and
the counters (the menus' counts) moved as often.

Real HTTP (the application served on a local port, one signed-in browser session per person)
on the run's database: PostgreSQL with TEST_DATABASE_URL (the row lock), else a SQLite file."""

import re
import threading
from datetime import timedelta

import pytest
import requests
from sqlalchemy import func, select

from app.auth.models import User
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStateCount, ItemStateEvent, PreparationItem, StateButton
from tests.browser.conftest import serving
from tests.conftest import database_url, make_app

PEOPLE, VEHICLES = 4, 3
FROM, TO = 2, 3  # Incoming to Awaiting: a button of the demo's begcare states


@pytest.fixture(autouse=True)
def _transaction():
    """The server commits for real in a database of its own: no rolled-back test transaction."""
    yield


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    options = {"pool_size": PEOPLE + 4, "max_overflow": 0}
    app = make_app(
        database_url(tmp_path_factory, "moverace", demo=True), SQLALCHEMY_ENGINE_OPTIONS=options
    )
    app.config["TESTING"] = False
    with serving(app) as url:
        yield app, url


def signed_in(url: str) -> tuple[requests.Session, str]:
    """A browser session of the demo seller, signed in through the sign-in form; its token."""
    browser = requests.Session()
    browser.headers["Accept-Language"] = "en-GB"
    form = browser.get(f"{url}/login").text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', form).group(1)
    answer = browser.post(
        f"{url}/login",
        data={"email": "seller@demo.test", "password": "demo-pass-1", "csrf_token": token},
    )
    assert "/login" not in answer.url
    page = browser.get(f"{url}/begcare/overview").text
    return browser, re.search(r'<meta name="csrf-token" content="([^"]+)"', page).group(1)


def vehicles_to_move(app) -> list[PreparationItem]:
    with app.app_context():
        seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
        activate(seller.active_instance_id)
        assert db.session.scalar(
            select(StateButton.id).where(
                StateButton.module == "begcare",
                StateButton.from_state == FROM,
                StateButton.to_state == TO,
            )
        )
        items = db.session.scalars(
            select(PreparationItem)
            .where(PreparationItem.module == "begcare", PreparationItem.state == FROM)
            .order_by(PreparationItem.id)
            .limit(VEHICLES)
        ).all()
        db.session.expunge_all()
        db.session.remove()
    return list(items)


def counters(app, instance_id: int) -> tuple[dict, dict]:
    """(the counters the menus show, the vehicles counted) per (division, state)."""
    with app.app_context():
        activate(instance_id)
        kept = db.session.execute(
            select(ItemStateCount.division_id, ItemStateCount.state, ItemStateCount.count).where(
                ItemStateCount.module == "begcare"
            )
        ).all()
        real = db.session.execute(
            select(PreparationItem.division_id, PreparationItem.state, func.count())
            .where(PreparationItem.module == "begcare")
            .group_by(PreparationItem.division_id, PreparationItem.state)
        ).all()
        db.session.remove()
    return {(d, s): n for d, s, n in kept if n}, {(d, s): n for d, s, n in real}


def test_people_moving_one_vehicle_at_once_move_it_once(served):
    app, url = served
    people = [signed_in(url) for _ in range(PEOPLE)]
    items = vehicles_to_move(app)
    assert len(items) == VEHICLES
    started = utcnow() - timedelta(seconds=1)
    answers: dict[int, list[str]] = {item.id: [] for item in items}
    for item in items:
        barrier = threading.Barrier(PEOPLE)

        def press(browser, token, item=item, barrier=barrier):
            barrier.wait()
            answer = browser.post(
                f"{url}/begcare/items/{item.id}/move",
                data={"from_state": str(FROM), "to_state": str(TO), "csrf_token": token},
            )
            answers[item.id].append(answer.text)

        threads = [threading.Thread(target=press, args=person) for person in people]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    for item in items:
        texts = answers[item.id]
        moved = [t for t in texts if f"{item.regno} moved to Awaiting." in t]
        there = [
            t
            for t in texts
            if f"{item.regno} has been moved to Awaiting by someone else in the meantime." in t
        ]
        assert len(moved) == 1, item.regno
        assert len(there) == PEOPLE - 1, item.regno
    with app.app_context():
        activate(items[0].instance_id)
        events = db.session.execute(
            select(ItemStateEvent.item_id, func.count())
            .where(ItemStateEvent.item_id.in_([i.id for i in items]))
            .where(ItemStateEvent.created_at >= started)
            .group_by(ItemStateEvent.item_id)
        ).all()
        states = set(
            db.session.scalars(
                select(PreparationItem.state).where(PreparationItem.id.in_([i.id for i in items]))
            )
        )
        db.session.remove()
    assert dict(events) == {item.id: 1 for item in items}  # one history entry each
    assert states == {TO}
    kept, real = counters(app, items[0].instance_id)
    assert kept == real  # the menus' counts moved once
