"""Fixtures for the quick-test tests: the demo users on the demo database (which holds the demo
storage and two finished tests of Nordbil), and builders of tests in either instance."""

import io

import pytest
from PIL import Image
from sqlalchemy import select

from app.core.models import Division, Instance
from app.core.tenancy import activate
from app.extensions import db
from app.quicktest.models import (
    Information,
    Storage,
    StorageContainer,
    StorageGroup,
    StorageGroupInformation,
)
from tests.shell.conftest import as_demo, demo_user  # noqa: F401


def png(size=(64, 48), colour=(29, 78, 216)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def instance(name: str) -> Instance:
    return db.session.scalars(select(Instance).where(Instance.company_name == name)).one()


def division(name: str) -> Division:
    return db.session.scalars(
        select(Division).where(Division.name == name).execution_options(all_instances=True)
    ).one()


def demo_storage() -> Storage:
    return db.session.scalars(
        select(Storage)
        .where(Storage.title == "Snabbtest begagnat")
        .execution_options(all_instances=True)
    ).one()


def finished_tests() -> list[StorageContainer]:
    return list(
        db.session.scalars(
            select(StorageContainer)
            .where(StorageContainer.reported_at.is_not(None))
            .order_by(StorageContainer.id)
            .execution_options(all_instances=True)
        )
    )


def info(title: str) -> Information:
    return db.session.scalars(
        select(Information).where(Information.title == title).execution_options(all_instances=True)
    ).one()


def group(title: str, storage_id: int) -> StorageGroup:
    return db.session.scalars(
        select(StorageGroup)
        .where(StorageGroup.title == title, StorageGroup.storage_id == storage_id)
        .execution_options(all_instances=True)
    ).one()


def foreign_test(reported: bool = True) -> StorageContainer:
    """A quick test of Fjordauto (the second instance), with one group and one text field."""
    from app.core.models import utcnow

    other = instance("Fjordauto AS")
    activate(other.id)
    storage = Storage(title="Hurtigtest")
    db.session.add(storage)
    db.session.flush()
    text = Information(title="Merknad", type="text", choices=[])
    db.session.add(text)
    db.session.flush()
    grp = StorageGroup(
        storage_id=storage.id, title="Generelt", links=[StorageGroupInformation(information=text)]
    )
    db.session.add(grp)
    db.session.flush()
    test = StorageContainer(
        identifier="AB12345",
        storage_id=storage.id,
        division_id=division("Fjordauto Bergen").id,
        reported_at=utcnow() if reported else None,
    )
    db.session.add(test)
    db.session.flush()
    activate(None)
    return test


@pytest.fixture
def seller(as_demo):  # noqa: F811
    return as_demo("seller")
