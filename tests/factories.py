"""Small builders of test data: an instance with its organisation tree, and users."""

import itertools

from app.auth.models import User
from app.auth.services import hash_password
from app.core.models import Country, Division, Instance, Region
from app.core.tenancy import activate
from app.extensions import db

PASSWORD = "Secret-pass-1"
_HASH = None
_seq = itertools.count(1)


def password_hash() -> str:
    global _HASH
    if _HASH is None:
        _HASH = hash_password(PASSWORD)
    return _HASH


def make_instance(name: str | None = None, divisions: int = 2) -> Instance:
    """An instance with one country, one region and `divisions` divisions."""
    n = next(_seq)
    instance = Instance(company_name=name or f"Company {n}")
    db.session.add(instance)
    db.session.flush()
    activate(instance.id)
    country = Country(code="SE", name="Sverige", currency="SEK", locale="sv-SE", milage_unit="km")
    region = Region(name=f"Region {n}", slug=f"region-{n}", country=country)
    db.session.add_all([country, region])
    for d in range(divisions):
        db.session.add(Division(name=f"Division {n}.{d}", slug=f"division-{n}-{d}", region=region))
    db.session.flush()
    activate(None)
    return instance


def make_user(instance: Instance | None = None, **fields) -> User:
    n = next(_seq)
    instance = instance or make_instance()
    values = {
        "email": f"user{n}@example.test",
        "firstname": "Test",
        "lastname": f"User{n}",
        "password_hash": password_hash(),
        "roles": ["ROLE_USER"],
        "modules": ["begcare"],
        "instances": [instance],
        "home_instance_id": instance.id,
        "active_instance_id": instance.id,
        **fields,
    }
    user = User(**values)
    db.session.add(user)
    db.session.flush()
    return user
