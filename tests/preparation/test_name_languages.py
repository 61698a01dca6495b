"""Entered words in every language (issue 37, point 7): a station's, a station group's, a
location's and a tag's name has a text per language, edited on its admin form; lists, the
vehicle page and its history read them in the reader's language (else the company's, else as
written), and the admin screens' search finds a name in any language."""

import re

from sqlalchemy import select

from app.core.settings import Tag
from app.core.tenancy import activate
from app.extensions import db
from app.preparation import locations, tags
from app.preparation.models import Location, Station
from tests.helpers import page_text
from tests.preparation.manage_helpers import demo_item, in_seller_instance
from tests.shell.conftest import demo_user


def _post(client, token, path, **data):
    return client.post(path, data={**data, "csrf_token": token})


def test_a_station_is_named_in_each_language_on_its_form_and_found_by_any(as_demo):
    client, token = as_demo("admin")  # reads English
    form = page_text(client.get("/admin/begcare/stations/new"))
    assert 'name="name_texts-sv-SE"' in form and 'name="name_texts-fi-FI"' in form
    response = _post(
        client, token, "/admin/begcare/stations/new",
        name="Polering", target_minutes=40, ordering=9, station_group_id="None",
        **{"name_texts-sv-SE": " Polering ", "name_texts-en-GB": "Polishing",
           "name_texts-de-DE": "Politur"},
    )  # fmt: skip
    assert response.status_code == 302, page_text(response)
    in_seller_instance()
    station = db.session.scalars(select(Station).where(Station.name == "Polering")).one()
    assert station.name_texts == {"sv-SE": "Polering", "en-GB": "Polishing", "de-DE": "Politur"}
    listed = page_text(client.get("/admin/begcare/stations?lang=de-DE"))
    assert ">Politur<" in listed and ">Polering<" not in listed
    nl = page_text(client.get("/admin/begcare/stations?lang=nl-NL"))  # no Dutch: the company's
    assert ">Polering<" in nl
    for phrase in ("politur", "POLISH", "Polering"):  # the search looks through every language
        found = page_text(client.get(f"/admin/begcare/stations?q={phrase}&lang=en-GB"))
        assert ">Polishing<" in found, phrase
        assert "Photography" not in found, phrase
    found = page_text(client.get("/admin/begcare/stations?q=wäsche&lang=en-GB"))
    assert ">Wash<" in found and ">Polishing<" not in found  # the demo's Tvätt, in German


def test_a_tag_and_a_location_read_in_the_readers_language_on_the_vehicle(as_demo):
    client, _token = as_demo("seller")
    item = demo_item(4)
    seller = demo_user("seller@demo.test")
    campaign = db.session.scalars(select(Tag).where(Tag.name == "Kampanj")).one()
    tags.set_tags(item, [campaign.id], seller)
    place = db.session.scalars(
        select(Location).where(
            Location.division_id == item.division_id, Location.kind == "parking",
            Location.module == "begcare", Location.id != item.parking_location_id,
        ).order_by(Location.id)
    ).first()  # fmt: skip
    locations.move(item, "parking", place.id, seller)
    db.session.flush()
    for lang in ("en-GB", "fi-FI", "sv-SE"):
        html = page_text(client.get(f"{_path(client, item)}?lang={lang}"))
        assert f">{campaign.name_texts[lang]}<" in html, lang
        assert f">{place.name_texts[lang]}<" in html, lang  # the place chosen
        if lang == "en-GB":  # the history names the place as it was, in the reader's language
            assert re.search(rf"(Parked at|to) {place.name_texts[lang]}</td>", html)


def _path(client, item) -> str:
    """The vehicle page's own address (a redirect would drop ?lang=)."""
    return client.get(f"/begcare/{item.id}", follow_redirects=True).request.path


def test_a_name_without_texts_reads_as_written(as_demo):
    client, _token = as_demo("station")
    activate(demo_user("station@demo.test").home_instance_id)
    wash = db.session.scalars(
        select(Station).where(Station.name == "Tvätt", Station.module == "begcare")
    ).one()
    wash.name_texts = {}
    db.session.flush()
    html = page_text(client.get("/begcare/station/vehicles?lang=de-DE"))
    assert "<strong>Tvätt</strong>" in html
