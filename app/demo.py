"""Demo data: one realistic, repeatable data set, and the links into it.

Features add their own part with `@seeder(order)` and their links with `@demo_link(name)`.
"""

import importlib
import json
from collections.abc import Callable

import click
from flask import Flask
from sqlalchemy import func, select

from app.auth import privileges
from app.auth.landing import STATION_LANDING
from app.auth.models import MODULES, Group, User
from app.auth.services import hash_password
from app.auth.tokens import make_token, set_secret
from app.core import jobs, roles
from app.core.models import Country, Division, Instance, Region
from app.core.tenancy import activate
from app.extensions import db

DEMO_PASSWORD = "demo-pass-1"  # noqa: S105 - documented in CONTRACT.md and README
# Nordbil's demo API token: the seller's rights, reading only (README, "The API with a token").
DEMO_API_TOKEN = "dc_demo-nordbil-read-only"  # noqa: S105 - documented in README
DEMO_API_SCOPES = ("account:read", "vehicles:read", "purchase:read", "dashboards:read")
LINK_NAMES = (
    "invite", "bid", "allocate", "change_status", "quick_test", "quick_test_pdf",
    "purchase_analysis_pdf", "dashboard", "bid_second_buyer", "reserve_advert", "reserve_bid",
)  # fmt: skip

_SEEDERS: list[tuple[int, Callable[[dict], None]]] = []
_LINKS: dict[str, Callable[[], str | None]] = {}


# The six languages after Swedish in the demo's tables of entered words (issue 37).
AFTER_SWEDISH = ("nb-NO", "fi-FI", "da-DK", "en-GB", "de-DE", "nl-NL")


def swedish_and(words: str, others: tuple[str, ...]) -> dict:
    """Demo words written in Swedish and their six translations (in AFTER_SWEDISH's order) as
    an entered text's {tag: text}."""
    return {"sv-SE": words, **dict(zip(AFTER_SWEDISH, others, strict=True))}


def swedish_options(options: list[str], table: dict[str, tuple[str, ...]]) -> dict:
    """A demo choice's options in the seven languages, one on each line (option_labels)."""
    each = [swedish_and(option, table[option]) for option in options]
    return {tag: "\n".join(texts[tag] for texts in each) for tag in each[0]} if each else {}


def seeder(order: int) -> Callable:
    """Register a function that adds one feature's demo rows; it gets the shared context."""

    def decorator(fn: Callable[[dict], None]) -> Callable[[dict], None]:
        _SEEDERS.append((order, fn))
        return fn

    return decorator


def demo_link(name: str) -> Callable:
    """Register the function that finds one of the demo-links URLs."""

    def decorator(fn: Callable[[], str | None]) -> Callable[[], str | None]:
        _LINKS[name] = fn
        return fn

    return decorator


COMPANIES = [
    {
        "name": "Nordbil AB",
        "country": ("SE", "Sverige", "km", "SEK", "sv-SE"),
        "regions": {
            "Stockholm": ["Nordbil Solna", "Nordbil Södertälje"],
            "Västra Götaland": ["Nordbil Göteborg", "Nordbil Borås"],
        },
    },
    {
        "name": "Fjordauto AS",
        "country": ("NO", "Norge", "km", "NOK", "nb-NO"),
        "regions": {
            "Oslo": ["Fjordauto Oslo Sentrum", "Fjordauto Lillestrøm"],
            "Vestland": ["Fjordauto Bergen", "Fjordauto Voss"],
        },
    },
]


def slugify(text: str) -> str:
    table = str.maketrans({"å": "a", "ä": "a", "ö": "o", "ø": "o", "æ": "ae", " ": "-"})
    return text.lower().translate(table)


def add_company(company: dict) -> tuple[Instance, dict[str, Division]]:
    """One company: its instance, country, regions and divisions (left active)."""
    instance = Instance(company_name=company["name"])
    db.session.add(instance)
    db.session.flush()
    activate(instance.id)
    code, name, unit, currency, locale = company["country"]
    country = Country(code=code, name=name, milage_unit=unit, currency=currency, locale=locale)
    db.session.add(country)
    divisions = {}
    for region_name, division_names in company["regions"].items():
        region = Region(name=region_name, slug=slugify(region_name), country=country)
        db.session.add(region)
        for division_name in division_names:
            division = Division(name=division_name, slug=slugify(division_name), region=region)
            db.session.add(division)
            divisions[division_name] = division
    db.session.flush()
    return instance, divisions


@seeder(10)
def seed_organisation(ctx: dict) -> None:
    """Two companies, each with one country, two regions and four divisions."""
    ctx["instances"], ctx["divisions"] = [], {}
    for company in COMPANIES:
        instance, divisions = add_company(company)
        ctx["divisions"].update(divisions)
        ctx["instances"].append(instance)
    activate(None)


@seeder(20)
def seed_users(ctx: dict) -> None:
    """The six demo accounts of CONTRACT.md."""
    first, second = ctx["instances"]
    divisions = ctx["divisions"]
    password = hash_password(DEMO_PASSWORD)
    activate(first.id)
    sales = Group(name="Försäljning", roles=["ROLE_USER"])
    db.session.add(sales)
    db.session.flush()
    activate(None)
    people = [
        dict(
            email="admin@demo.test",
            firstname="Ada",
            lastname="Admin",
            instances=[first, second],
            roles=[
                roles.ROLE_ADMIN,
                roles.ROLE_MANAGER_ADMIN,
                roles.IS_IMPERSONATOR,
                *roles.ALL_GLOBAL_ROLES,
                *roles.ALL_TENANT_ROLES,
            ],
            modules=list(MODULES),
            all_divisions=True,
            options={"language": "en-GB"},
        ),
        dict(
            email="seller@demo.test",
            firstname="Sara",
            lastname="Lindqvist",
            instances=[first],
            roles=[
                "ROLE_USER",
                roles.ROLE_STATISTICS,
                roles.ROLE_CCMARKET_STATISTICS,
                roles.add_vehicle("begcare"),
                roles.add_vehicle("newcare"),
            ],
            modules=list(MODULES),
            all_divisions=True,
            groups=[sales],
        ),
        dict(
            email="buyer@demo.test",
            firstname="Ole",
            lastname="Hansen",
            instances=[second],
            roles=["ROLE_USER"],
            modules=["market"],
            all_divisions=True,
            options={"language": "nb-NO"},
        ),
        dict(
            email="station@demo.test",
            firstname="Stefan",
            lastname="Berg",
            instances=[first],
            roles=["ROLE_USER", roles.ROLE_STATION_USER],
            modules=["begcare"],
            divisions=[divisions["Nordbil Solna"]],
            options={"landingPage": STATION_LANDING},
        ),
        dict(
            email="divadmin@demo.test",
            firstname="Dina",
            lastname="Ek",
            instances=[first],
            roles=["ROLE_USER", roles.ROLE_USER_DIVISION_ADMIN],
            modules=["begcare", "newcare"],
            divisions=[divisions["Nordbil Göteborg"]],
        ),
        dict(
            email="global@demo.test",
            firstname="Gustav",
            lastname="Global",
            instances=[first, second],
            roles=["ROLE_USER"],
            modules=["begcare", "newcare"],
            is_global=True,
            all_divisions=True,
        ),
    ]
    ctx["users"] = {}
    for person in people:
        user = User(
            email=person["email"],
            password_hash=password,
            firstname=person["firstname"],
            lastname=person["lastname"],
            roles=person["roles"],
            modules=person["modules"],
            options=person.get("options", {}),
            is_global=person.get("is_global", False),
            all_divisions=person.get("all_divisions", False),
            instances=person["instances"],
            groups=person.get("groups", []),
            divisions=person.get("divisions", []),
            home_instance_id=person["instances"][0].id,
            active_instance_id=person["instances"][0].id,
        )
        db.session.add(user)
        ctx["users"][person["email"]] = user
    db.session.flush()


@demo_link("dashboard")
def dashboard_link() -> str:
    return "/my-dashboard"


# Each feature's demo part; importing it registers its seeders and links.
FEATURE_DEMOS = (
    "app.market.demo",
    "app.preparation.demo",
    "app.preparation.demo_specification",
    "app.preparation.recon_demo",
    "app.account.demo",
    "app.messages.demo",
    "app.ranking.demo",
    "app.quicktest.demo",
    "app.admin.demo",
    "app.dashboard.demo",
    "app.purchase.demo",
    "app.bookings.demo",
    "app.automation.demo",
)


def _register_feature_demos() -> None:
    for module in FEATURE_DEMOS:
        importlib.import_module(module)


@seeder(25)
def seed_api_token(ctx: dict) -> None:
    """Nordbil's website token, made by the administrator with the seller's rights."""
    first = ctx["instances"][0]
    admin, seller = (
        db.session.scalars(select(User).where(User.email == email)).one()
        for email in ("admin@demo.test", "seller@demo.test")
    )
    divisions = [d for d in seller.divisions if d.instance_id == first.id]
    reach = privileges.reach_of(seller, first.id)
    token, _secret = make_token(
        "Webbplatsen", admin, first, DEMO_API_SCOPES, reach, divisions, days=365
    )
    set_secret(token, DEMO_API_TOKEN)
    db.session.flush()


def load_demo_data() -> bool:
    """Load the demo data set into an empty database; return False when it holds data."""
    _register_feature_demos()
    if db.session.scalar(select(func.count()).select_from(User)):
        return False
    ctx: dict = {}
    for _order, fn in sorted(_SEEDERS, key=lambda pair: pair[0]):
        fn(ctx)
    activate(None)
    db.session.commit()
    jobs.dispatch()
    return True


def demo_links() -> dict[str, str | None]:
    """Return the site-relative demo URLs; a link whose feature is not built yet is null."""
    _register_feature_demos()
    return {name: (_LINKS[name]() if name in _LINKS else None) for name in LINK_NAMES}


def register_cli(app: Flask) -> None:
    @app.cli.command("demo-data")
    def demo_data_command() -> None:
        """Load the demo data set into an empty database."""
        if load_demo_data():
            click.echo("Demo data loaded. Every demo user's password is demo-pass-1.")
            click.echo(
                f"The demo API token (Nordbil, reading): {DEMO_API_TOKEN}, e.g. curl -H "
                f"'Authorization: Bearer {DEMO_API_TOKEN}' http://127.0.0.1:5000/api/me"
            )
        else:
            click.echo("The database already holds data; nothing loaded.")

    @app.cli.command("demo-links")
    def demo_links_command() -> None:
        """Print the demo URLs as one JSON object."""
        click.echo(json.dumps(demo_links()))
