"""Issue 18, defect 8: a stored file is readable only by who may see what it belongs to. Each
feature registers how to decide for its files (app/core/file_access.py); a file no feature
claims is readable by nobody; advert images by the users who may see that advert."""

# ruff: noqa: F811  (the shared demo fixtures are imported by name)
import pytest

from app.core import file_access
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import AdvertImage
from app.preparation import files as file_services
from tests.market._common import make_advert, nordbil
from tests.preparation.manage_helpers import image_bytes
from tests.shell.conftest import as_demo, demo_user  # noqa: F401


def _stored(instance_id: int):
    activate(instance_id)
    file = file_services.store_file(image_bytes(), "car.png", None)
    db.session.flush()
    activate(None)
    return file


def _advert_image(status: str = "published"):
    group = nordbil()
    advert = make_advert(group, status)
    file = _stored(group.instance_id)
    activate(group.instance_id)
    db.session.add(AdvertImage(advert_id=advert.id, file_object_id=file.id, position=0))
    db.session.flush()
    activate(None)
    return advert, file


@pytest.mark.parametrize("who", ["station", "divadmin"])
def test_an_advert_image_is_not_readable_without_the_market(as_demo, who):
    _advert, file = _advert_image()
    client, _ = as_demo(who)  # Nordbil's own staff, without the market module
    for path in (
        f"/api/file-objects/{file.uuid}/binary",
        f"/api/file-objects/{file.uuid}/binary?variation=small",
    ):
        assert client.get(path).status_code == 404, path


def test_an_advert_image_is_readable_by_who_sees_the_advert(as_demo):
    _advert, file = _advert_image("draft")
    client, _ = as_demo("seller")
    response = client.get(f"/api/file-objects/{file.uuid}/binary")
    assert response.status_code == 200 and response.mimetype == "image/png"


def test_a_file_that_belongs_to_nothing_is_readable_by_nobody(as_demo):
    file = _stored(nordbil().instance_id)
    client, _ = as_demo("seller")
    assert client.get(f"/api/file-objects/{file.uuid}/binary").status_code == 404
    client, _ = as_demo("admin")
    assert client.get(f"/api/file-objects/{file.uuid}/binary").status_code == 404


def test_a_feature_registers_who_may_read_its_files(as_demo, monkeypatch):
    file = _stored(nordbil().instance_id)
    monkeypatch.setattr(file_access, "_RULES", dict(file_access._RULES))

    @file_access.rule("test.owned")
    def _owned(file_object_id: int):
        return (
            (demo_user("seller@demo.test").id == _current_id())
            if file_object_id == file.id
            else None
        )

    client, _ = as_demo("seller")
    assert client.get(f"/api/file-objects/{file.uuid}/binary").status_code == 200
    client, _ = as_demo("divadmin")
    assert client.get(f"/api/file-objects/{file.uuid}/binary").status_code == 404


def _current_id():
    from flask_login import current_user

    return current_user.id


def test_the_features_rules_are_registered():
    assert {"preparation.item-file", "market.advert-image"} <= set(file_access.rules())
