"""Issue 34: a dealer group's data at scale, loaded with PostgreSQL's COPY.

On an empty PostgreSQL database: migrates it, loads the demo data (its accounts sign in), then
gives the demo's first company (Nordbil) 50 divisions in 3 countries and 300 staff, and
`--vehicles` vehicles spread over ten years with their state history, station tasks, files'
metadata and audit rows, adverts (one per 20 vehicles) with bids (about one per vehicle), quick
tests and purchase analyses (one per 10 vehicles). Deterministic: the same seed and day give
the same rows (times count back from --today, midnight UTC). Ends with recount, the
statistics' totals (app.preparation.totals.rebuild) and ANALYZE.

    runuser -u postgres -- createdb -O dealercare h_scale_100k
    .venv/bin/python bench/scale_data.py --vehicles 100000 \\
        --url postgresql://dealercare:dealercare@127.0.0.1:5432/h_scale_100k

`--related 0.5` halves the rows per vehicle (history, tasks, files, bids, audit), as the plan
test does to load 100k vehicles within its budget.
"""

import argparse
import json
import os
import random
import sys
import time
import uuid
from array import array
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DIVISIONS = 50
USERS = 300
YEARS = 10
COUNTRIES = (  # the demo's first company is Swedish; the group adds Norway and Finland
    ("NO", "Norge", "km", "NOK", "nb-NO", ("Oslo", "Vestland")),
    ("FI", "Suomi", "km", "EUR", "fi-FI", ("Uusimaa", "Pirkanmaa")),
)
BRANDS = {
    "Volvo": ("V60", "XC60", "XC40", "V90"),
    "Kia": ("Niro", "Ceed", "Sportage", "EV6"),
    "Audi": ("A4", "A6", "Q5", "e-tron"),
    "Toyota": ("Corolla", "RAV4", "Yaris", "C-HR"),
    "Volkswagen": ("Golf", "Passat", "ID.4", "Tiguan"),
}
FUELS = ("Petrol", "Diesel", "Electric", "Hybrid")
COLORS = ("Black", "White", "Silver", "Blue", "Red", "Grey")
# The path of a vehicle through the states (app/preparation/states.py); the archived ones
# went all the way.
PATH = (2, 3, 4, 6, 7, 9)


def sqlalchemy_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def libpq_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


class Loader:
    """COPY rows into one table at a time; columns the caller leaves out that the database
    needs (NOT NULL without a server default) get the model's own default, once per table."""

    def __init__(self, conn, metadata):
        self.conn, self.metadata, self.counts = conn, metadata, {}

    def next_id(self, table: str) -> int:
        return self.conn.execute(f'SELECT coalesce(max(id), 0) + 1 FROM "{table}"').fetchone()[0]

    def copy(self, table_name: str, columns: tuple[str, ...], rows) -> int:
        table = self.metadata.tables[table_name]
        fill_names, fill_values = [], []
        for column in table.columns:
            if column.name in columns or column.computed is not None or column.nullable:
                continue
            if column.server_default is not None or column.primary_key:
                continue
            if column.unique or column.foreign_keys or column.default is None:
                raise ValueError(f"{table_name}.{column.name} needs a value from the generator")
            value = column.default.arg
            value = value(None) if callable(value) else value
            fill_names.append(column.name)
            fill_values.append(json.dumps(value) if isinstance(value, dict | list) else value)
        names = ", ".join(f'"{n}"' for n in (*columns, *fill_names))
        tail = tuple(fill_values)
        n = 0
        with self.conn.cursor() as cur, cur.copy(f'COPY "{table_name}" ({names}) FROM STDIN') as cp:
            for row in rows:
                cp.write_row(row + tail)
                n += 1
        if "id" in columns:
            self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{table_name}\"', 'id'), "
                f'(SELECT max(id) FROM "{table_name}"))'
            )
        self.counts[table_name] = self.counts.get(table_name, 0) + n
        return n


def organisation(rng: random.Random) -> dict:
    """The group in the ORM (small): countries, regions, 50 divisions, 300 staff. Returns the
    ids the bulk rows refer to."""
    from sqlalchemy import select

    from app.auth.models import Group, User
    from app.core import roles
    from app.core.models import Country, Division, Instance, Region
    from app.core.tenancy import activate
    from app.extensions import db
    from app.market.models import InstanceGroup
    from app.preparation.models import Station
    from app.preparation.recon_models import ReconLimit

    instance = db.session.scalars(select(Instance).order_by(Instance.id)).first()
    activate(instance.id)
    regions = list(db.session.scalars(select(Region).order_by(Region.id)))
    for code, name, unit, currency, locale, region_names in COUNTRIES:
        country = Country(code=code, name=name, milage_unit=unit, currency=currency, locale=locale)
        db.session.add(country)
        for region_name in region_names:
            region = Region(name=region_name, slug=region_name.lower(), country=country)
            db.session.add(region)
            regions.append(region)
    db.session.flush()
    have = db.session.scalars(select(Division).order_by(Division.id)).all()
    for n in range(len(have), DIVISIONS):
        region = regions[n % len(regions)]
        db.session.add(
            Division(name=f"Group site {n + 1:02d}", slug=f"site-{n + 1:02d}", region=region)
        )
    db.session.flush()
    divisions = db.session.scalars(select(Division).order_by(Division.id)).all()
    seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
    sales = db.session.scalars(select(Group).order_by(Group.id)).first()
    count = db.session.scalar(select(db.func.count()).select_from(User))
    staff_roles = ["ROLE_USER", roles.add_vehicle("begcare"), roles.add_vehicle("newcare")]
    for n in range(count, USERS):
        home = divisions[n % DIVISIONS]
        db.session.add(
            User(
                email=f"staff{n:03d}@scale.test", password_hash=seller.password_hash,
                firstname="Staff", lastname=f"{n:03d}", roles=staff_roles,
                modules=["begcare", "newcare", "market", "quicktest", "purchase"],
                all_divisions=n % 10 == 0, instances=[instance], groups=[sales] if sales else [],
                divisions=[home, divisions[(n + 25) % DIVISIONS]],
                home_instance_id=instance.id, active_instance_id=instance.id,
            )
        )  # fmt: skip
    db.session.flush()
    users = db.session.scalars(select(User.id).order_by(User.id)).all()
    stations = {
        module: db.session.scalars(select(Station.id).where(Station.module == module)).all()
        for module in ("begcare", "newcare")
    }
    rates = dict(db.session.execute(select(Station.id, Station.hourly_rate)).all())
    limits = {}  # {module: {division id or None (the whole instance's): amount}}
    for module, division_id, amount in db.session.execute(
        select(ReconLimit.module, ReconLimit.division_id, ReconLimit.amount)
    ):
        limits.setdefault(module, {})[division_id] = amount
    activate(None)
    groups = db.session.scalars(
        select(InstanceGroup).execution_options(all_instances=True).order_by(InstanceGroup.id)
    ).all()
    sellers = [g for g in groups if g.seller and g.instance_id == instance.id]
    buyers = [g for g in groups if g.buyer]
    bidders = {}
    for group in buyers:  # a buyer group's first member bids for it
        bidders[group.id] = db.session.scalar(
            select(User.id)
            .where(User.memberships.any(instance_id=group.instance_id))
            .order_by(User.id)
            .limit(1)
        )
    from app.quicktest.models import Storage

    storage = db.session.scalar(
        select(Storage.id)
        .where(Storage.instance_id == instance.id)
        .execution_options(all_instances=True)
        .order_by(Storage.id)
        .limit(1)
    )
    db.session.commit()
    return {
        "instance": instance.id, "divisions": [d.id for d in divisions], "users": users,
        "stations": stations, "seller_group": sellers[0].id, "seller_user": seller.id,
        "buyers": [(g.id, g.currency, bidders[g.id]) for g in buyers if bidders[g.id]],
        "storage": storage, "rates": rates, "limits": limits,
    }  # fmt: skip


def vehicles(
    loader: Loader, org: dict, n: int, related: float, rng: random.Random, today: datetime
):
    """Vehicles with their history, tasks, files and audit rows; returns (id, created) of the
    archived ones (adverts, analyses and quick tests refer to vehicles)."""
    inst, divisions, users = org["instance"], org["divisions"], org["users"]
    first = loader.next_id("preparation_item")
    items, archived = [], []
    for k in range(n):
        created = today - timedelta(minutes=rng.randrange(YEARS * 365 * 24 * 60))
        old = (today - created).days > 90
        state = 9 if old and rng.random() < 0.95 else rng.randint(1, 8)
        brand = rng.choice(tuple(BRANDS))
        module = "begcare" if k % 3 else "newcare"
        changed = created + timedelta(days=rng.randint(0, 60)) if state == 9 else created
        items.append((first + k, module, state, created, changed, divisions[k % len(divisions)]))
        if state == 9:
            archived.append((first + k, created, brand))
        yield_row = (
            first + k, inst, module, divisions[k % len(divisions)], state, changed,
            f"SC{k:07d}", f"SCALEVIN{k:09d}", brand, rng.choice(BRANDS[brand]),
            rng.randint(2008, 2026), rng.choice(FUELS), rng.choice(COLORS),
            rng.randrange(0, 250_000, 10), rng.randrange(50_000, 600_000, 100),
            rng.randrange(60_000, 700_000, 100), k % 17 == 0, created, changed,
        )  # fmt: skip
        items[-1] = items[-1] + (yield_row,)
    loader.copy(
        "preparation_item",
        ("id", "instance_id", "module", "division_id", "state", "state_changed_at", "regno", "vin",
         "brand", "model", "model_year", "fuel_type", "color", "mileage", "purchase_price",
         "sales_price", "warning", "created_at", "modified_at"),
        (row[-1] for row in items),
    )  # fmt: skip

    def history():
        for item_id, _module, state, created, _changed, _div, _row in items:
            steps = PATH if state == 9 else [s for s in PATH if s < state] + [state]
            steps = steps[: max(1, round(len(steps) * related))] if related < 1 else steps
            before, at = None, created
            for step in steps:
                yield (inst, item_id, before, step, rng.choice(users), at)
                before, at = step, at + timedelta(hours=rng.randint(2, 200))

    loader.copy(
        "item_state_event",
        ("instance_id", "item_id", "from_state", "to_state", "user_id", "created_at"),
        history(),
    )

    task_first = loader.next_id("item_station_task")
    took = array("H")  # the minutes each task took (0: not done), for its cost lines

    def tasks():
        task_id = task_first
        for item_id, module, state, created, _changed, _div, _row in items:
            plan = _task_plan(org, item_id, module, state, created, related)
            for j, _at, station_id, status, start in plan:
                user = rng.choice(users)
                minutes = rng.randint(20, 180) if status == "done" else 0
                took.append(minutes)
                yield (
                    task_id, inst, item_id, station_id, status, j, 60, user,
                    start if status != "pending" else None,
                    start + timedelta(minutes=minutes) if minutes else None,
                )  # fmt: skip
                task_id += 1

    loader.copy(
        "item_station_task",
        ("id", "instance_id", "item_id", "station_id", "status", "ordering", "target_minutes",
         "assigned_user_id", "started_at", "finished_at"),
        tasks(),
    )  # fmt: skip
    recon(loader, org, items, task_first, took, related, today)
    with_files = [row for row in items if rng.random() < related]
    file_first = loader.next_id("file_object")
    loader.copy(
        "file_object",
        ("id", "instance_id", "uuid", "name", "content_type", "size", "data", "created_at",
         "created_by_id"),
        (
            (file_first + j, inst, str(uuid.UUID(int=rng.getrandbits(128))), f"photo-{row[0]}.jpg",
             "image/jpeg", rng.randint(80_000, 900_000), b"", row[3], rng.choice(users))
            for j, row in enumerate(with_files)
        ),
    )  # fmt: skip
    loader.copy(
        "item_file",
        ("instance_id", "item_id", "file_object_id", "title", "created_at"),
        ((inst, row[0], file_first + j, "Photo", row[3]) for j, row in enumerate(with_files)),
    )
    loader.copy(
        "audit_log",
        ("created_at", "instance_id", "user_id", "division_id", "action", "details"),
        (
            (row[4], inst, rng.choice(users), row[5], "item.state", json.dumps({"item": row[0]}))
            for row in items
            if rng.random() < related / 2
        ),
    )
    return archived


def _task_plan(org: dict, item_id: int, module: str, state: int, created: datetime, related):
    """(ordering, station's position, station, status, start) of a vehicle's tasks: done once
    it left the stations (state 6 on), else the first active and the rest pending."""
    stations = org["stations"][module]
    for j in range(round(2 * related) if stations else 0):
        status = "done" if state >= 6 else ("active" if j == 0 else "pending")
        at = (item_id + j) % len(stations)
        yield j, at, stations[at], status, created + timedelta(hours=4 + j * 8)


def _cents(value: int) -> str:
    return f"{value // 100}.{value % 100:02d}"


def recon(loader: Loader, org: dict, items: list, task_first: int, took, related, today) -> None:
    """Issue 33's cost lines of the tasks: an estimate on every task of a vehicle past its
    arrival (labour: hours x the station's rate; parts or sublet as the station's work has,
    app/preparation/recon_demo.WORK), the actual cost once a task is done (most near the
    estimate, some well over it, now and then a part found during the work), and an approval
    for each estimate above its division's limit: approved before the work started, or, for a
    task not begun, waiting or (one in five) rejected. A random stream of its own, so the
    other tables' rows are those of a run without cost lines."""
    from app.preparation.recon_demo import WORK  # lazy: the app is imported once generate runs

    inst, users = org["instance"], org["users"]
    rng = random.Random(org["seed"] * 1000 + 33)
    limits = org["limits"]
    approvals = []

    def rows():
        task_id = task_first
        for item_id, module, state, created, _changed, division_id, _row in items:
            limit = limits.get(module, {})
            limit = limit.get(division_id, limit.get(None))
            plan = _task_plan(org, item_id, module, state, created, related)
            for _j, at, station_id, status, start in plan:
                minutes, task_id = took[task_id - task_first], task_id + 1
                if state == 1:
                    continue
                rate_, (low, high), other = WORK[at % len(WORK)]
                rate = int(org["rates"].get(station_id) or rate_)
                hours = max(1, round(rng.uniform(low, high) * 2))  # half hours
                parts = (
                    rng.randrange(other[2], other[3]) * 100 if other and rng.random() < 0.7 else 0
                )
                estimate = hours * rate * 50 + parts  # cents
                begun = min(start, today - timedelta(minutes=1))
                asked = begun - timedelta(hours=rng.randint(2, 72))
                user = rng.choice(users)
                over = limit is not None and estimate > limit * 100
                at = asked if over else begun
                yield (task_id - 1, item_id, "estimate", "labour", "", _cents(hours * 50),
                       _cents(rate * 100), _cents(hours * rate * 50), user, at)  # fmt: skip
                if parts:
                    yield (task_id - 1, item_id, "estimate", other[0], other[1], None, None,
                           _cents(parts), user, at)  # fmt: skip
                if over:
                    decided = None if status == "pending" else begun - timedelta(hours=1)
                    verdict = "approved" if decided else "pending"
                    if verdict == "pending" and rng.random() < 0.2:
                        verdict, decided = "rejected", asked + timedelta(hours=rng.randint(1, 30))
                    approvals.append((
                        inst, item_id, task_id - 1, _cents(estimate), verdict, user, asked,
                        rng.choice(users) if decided else None, decided,
                    ))  # fmt: skip
                if not minutes:
                    continue
                # Most land near the estimate; a few run well over it.
                factor = rng.choice((0.9, 1.0, 1.0, 1.1, 1.2, 1.6))
                finished = start + timedelta(minutes=minutes)
                spent = max(1, round(hours * factor))
                yield (task_id - 1, item_id, "actual", "labour", "", _cents(spent * 50),
                       _cents(rate * 100), _cents(spent * rate * 50), user, finished)  # fmt: skip
                if parts:
                    yield (task_id - 1, item_id, "actual", other[0], other[1], None, None,
                           _cents(round(parts * factor / 100) * 100), user, finished)  # fmt: skip
                if rng.random() < 0.08:
                    yield (task_id - 1, item_id, "actual", "parts", "Extra reservdel", None, None,
                           _cents(rng.randrange(200, 4000) * 100), user, finished)  # fmt: skip

    loader.copy(
        "recon_line",
        ("instance_id", "task_id", "item_id", "phase", "kind", "description", "hours", "rate",
         "amount", "created_by_id", "created_at"),
        ((inst, *row) for row in rows()),
    )  # fmt: skip
    loader.copy(
        "recon_approval",
        ("instance_id", "item_id", "task_id", "amount", "status", "requested_by_id",
         "requested_at", "decided_by_id", "decided_at"),
        approvals,
    )  # fmt: skip


def market(loader: Loader, org: dict, archived: list, n: int, related: float, rng, today):
    """Adverts (n/20) of archived vehicles, the bidders' links and about n bids."""
    inst = org["instance"]
    count = n // 20
    first = loader.next_id("advert")
    link_first = loader.next_id("market_link")
    adverts, links, bids = [], [], []
    per_advert = max(1, round(20 * related))
    for j, (item_id, created, brand) in enumerate(archived[:count]):
        advert_id = first + j
        live = j >= count - 200  # the newest 200 are open for bids around a closing time
        published = today - timedelta(days=2) if live else created + timedelta(days=30)
        ends = today + timedelta(hours=2 + j % 24) if live else published + timedelta(days=3)
        start_price = rng.randrange(40_000, 400_000, 1000)
        advert_links = []
        for buyer_id, currency, user_id in org["buyers"]:
            advert_links.append((link_first + len(links), buyer_id, currency, user_id))
            links.append((link_first + len(links), inst, uuid.UUID(int=rng.getrandbits(128)).hex,
                          "bid", advert_id, buyer_id, user_id, published))  # fmt: skip
        amount, best = start_price, None
        for b in range(per_advert if advert_links else 0):
            link_id, group_id, currency, user_id = advert_links[b % len(advert_links)]
            amount += 1000 * rng.randint(1, 3)
            bids.append((inst, advert_id, group_id, user_id, link_id, f"scale-{b}", amount,
                         "SEK", amount, published + timedelta(minutes=7 * b), 1))  # fmt: skip
            best = (amount, group_id)
        status = "published" if live else "sold"
        adverts.append((
            advert_id, inst, uuid.UUID(int=rng.getrandbits(128)).hex, org["seller_group"], item_id,
            f"SC{item_id:07d}", brand, rng.choice(BRANDS[brand]), "SEK", start_price, 1000, ends,
            status, published, best[0] if best else None, per_advert if best else 0,
            None if live or not best else best[1], None if live or not best else best[0],
            None if live or not best else ends, None if live or not best else ends + timedelta(days=3),
            None if not best else best[1], org["seller_user"], published, published,
        ))  # fmt: skip
    loader.copy(
        "advert",
        ("id", "instance_id", "hash", "seller_group_id", "item_id", "regno", "brand", "model",
         "currency", "start_price", "bid_step", "ends_at", "status", "published_at", "highest_bid",
         "bid_count", "allocated_group_id", "allocated_price", "allocated_at", "sold_at",
         "highest_group_id", "created_by_id", "created_at", "modified_at"),
        adverts,
    )  # fmt: skip
    loader.copy(
        "market_link",
        ("id", "instance_id", "hash", "kind", "advert_id", "group_id", "user_id", "created_at"),
        links,
    )
    loader.copy(
        "advert_bid",
        ("instance_id", "advert_id", "group_id", "user_id", "link_id", "request_key", "amount",
         "currency", "advert_amount", "created_at", "rate"),
        bids,
    )  # fmt: skip


def analyses(loader: Loader, org: dict, archived: list, n: int, rng) -> None:
    """Quick tests and purchase analyses: one each per ten vehicles."""
    inst, divisions, users = org["instance"], org["divisions"], org["users"]
    chosen = archived[-(n // 10) :] if n >= 10 else []
    if org["storage"]:
        loader.copy(
            "storage_container",
            ("instance_id", "uuid", "identifier", "storage_id", "division_id", "item_id",
             "user_id", "created_at"),
            (
                (inst, uuid.UUID(int=rng.getrandbits(128)).hex, f"QT{j:07d}", org["storage"],
                 divisions[j % len(divisions)], item_id, rng.choice(users), created)
                for j, (item_id, created, _brand) in enumerate(chosen)
            ),
        )  # fmt: skip
    loader.copy(
        "purchase_analysis",
        ("instance_id", "identifier", "division_id", "created_by_id", "status", "regno", "brand",
         "model", "mileage", "item_id", "created_at", "modified_at"),
        (
            (inst, f"PA{j:07d}", divisions[j % len(divisions)], rng.choice(users),
             "done" if j % 4 else "draft", f"SC{item_id:07d}", brand, rng.choice(BRANDS[brand]),
             rng.randrange(0, 200_000, 10), item_id, created - timedelta(days=5),
             created - timedelta(days=5))
            for j, (item_id, created, brand) in enumerate(chosen)
        ),
    )  # fmt: skip


def generate(url: str, vehicles_count: int, related: float = 1.0, seed: int = 34,
             today: date | None = None, quiet: bool = False, demo_loaded: bool = False) -> dict:  # fmt: skip
    """Fill the empty database at `url` (or, with `demo_loaded`, one already migrated and
    holding the demo data, as the tests' templates are); returns the rows loaded per table."""
    import psycopg
    from flask_migrate import upgrade

    from app import create_app
    from app.demo import load_demo_data
    from app.extensions import db
    from app.market import bid_totals
    from app.preparation.services import recount
    from app.preparation.totals import rebuild

    started = time.perf_counter()
    app = create_app({"SQLALCHEMY_DATABASE_URI": sqlalchemy_url(url)})
    rng = random.Random(seed)
    today = today or datetime.now(UTC).date()
    midnight = datetime(today.year, today.month, today.day, tzinfo=UTC)
    with app.app_context():
        if not demo_loaded:
            upgrade()
        if not demo_loaded and not load_demo_data():
            raise SystemExit("scale_data needs an empty database (it found the demo data)")
        org = organisation(rng)
        org["seed"] = seed
        with psycopg.connect(libpq_url(url)) as conn:
            loader = Loader(conn, db.metadata)
            archived = vehicles(loader, org, vehicles_count, related, rng, midnight)
            market(loader, org, archived, vehicles_count, related, rng, midnight)
            analyses(loader, org, archived, vehicles_count, rng)
            conn.commit()
        recount(org["instance"])
        bid_totals.recount(org["instance"])  # the bids were copied in, not placed
        rebuild(db.session.connection())  # the statistics' totals: COPY passed the session
        db.session.commit()
        with psycopg.connect(libpq_url(url), autocommit=True) as conn:
            conn.execute("ANALYZE")
        db.engine.dispose()
    if not quiet:
        for table, n in loader.counts.items():
            print(f"{table:22s} {n:10d}")
        print(f"loaded in {time.perf_counter() - started:.1f} s")
    return loader.counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vehicles", type=int, default=100_000)
    parser.add_argument("--related", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--today", type=date.fromisoformat, default=None)
    parser.add_argument("--url", default=os.environ.get("BENCH_DATABASE_URL"))
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = sqlalchemy_url(args.url or "")
    if not args.url or not args.url.startswith("postgresql"):
        raise SystemExit("give --url (or BENCH_DATABASE_URL) of an empty PostgreSQL database")
    generate(args.url, args.vehicles, args.related, args.seed, args.today)


if __name__ == "__main__":
    main()
