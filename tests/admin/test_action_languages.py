"""Vehicle actions' button text in every language (issue 37, point 7): the actions admin form
edits the seven texts with the shared TextsField; a Swedish reader of the vehicle page gets the
Swedish button, a German reader without a German text the company's language (Swedish)."""

import re

import app.preparation  # noqa: F401  (first: the menu's imports form a cycle otherwise)
from app.core.models import Instance
from app.core.settings import SettingRow
from app.extensions import db
from tests.admin.test_settings_act import ADMIN, vehicle
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in


def _button(client, user, language: str, page: str) -> list[str]:
    user.options = {"language": language}
    db.session.flush()
    html = client.get(page).get_data(as_text=True)
    return re.findall(r"data-vehicle-action>([^<]+?) <span", html)


def test_the_action_button_reads_in_each_readers_language(client):
    admin = make_user(make_instance(), roles=ADMIN, modules=["begcare"], all_divisions=True)
    instance = db.session.get(Instance, admin.active_instance_id)  # Swedish (make_instance)
    item = vehicle(instance, "ABC123", 3)
    token = sign_in(client, admin)
    new = page_text(client.get("/admin/general/actions/new"))
    assert "Button text in each language" in new and ">Suomi</label>" in new
    form = {
        "csrf_token": token, "name": "Valuation", "x_label": "Value it", "active": "y",
        "x_url": "https://valuation.test/car?regno={regno}",
        "x_label_texts-sv-SE": "Värdera bilen", "x_label_texts-en-GB": "Value the car",
    }  # fmt: skip
    assert client.post("/admin/general/actions/new", data=form).status_code == 302
    row = db.session.query(SettingRow).filter_by(kind="action", name="Valuation").one()
    assert row.data["label_texts"] == {"sv-SE": "Värdera bilen", "en-GB": "Value the car"}
    page = f"/begcare/items/incoming/{item.id}/stations-manage"
    assert _button(client, admin, "sv-SE", page) == ["Värdera bilen"]
    assert _button(client, admin, "en-GB", page) == ["Value the car"]
    assert _button(client, admin, "de-DE", page) == ["Värdera bilen"]  # the company's language
