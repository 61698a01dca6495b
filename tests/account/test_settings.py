"""My settings: language, landing page (with its fall-backs), time zone and password."""

import re
from datetime import datetime

import pytz
from sqlalchemy import select

from app.core.i18n import user_time_zone
from app.extensions import db
from app.preparation.models import CustomList, ItemStationTask, PreparationItem
from tests.factories import PASSWORD, make_instance, make_user
from tests.helpers import message_key, page_text, sign_in
from tests.shell.conftest import demo_user


def _patch(client, token, **values):
    return client.patch("/api/me/options", json=values, headers={"X-CSRFToken": token})


def _props(response) -> str:
    return page_text(response)


# --- the page ---------------------------------------------------------------------------------


def test_settings_offer_every_menu_destination_and_the_custom_lists_as_landing_pages(as_demo):
    client, _token = as_demo("seller")
    text = _props(client.get("/user"))
    for path in ("/begcare/items/incoming", "/market/dashboard", "/my-lists", "/my-events"):
        assert f'"value": "{path}"' in text, path
    for custom in db.session.scalars(
        select(CustomList).where(CustomList.user_id == demo_user("seller@demo.test").id)
    ):
        assert f'"value": "/custom-list/{custom.id}/list"' in text
        assert f"Custom list: {custom.name}" in text
    assert '"value": "/logout"' not in text
    assert '"timeZone": "Europe/Stockholm"' in text  # the demo seller's choice
    assert '"countryTimeZone": "Europe/Stockholm"' in text


def test_a_station_user_is_not_offered_what_he_may_not_open(as_demo):
    client, _token = as_demo("station")
    text = _props(client.get("/user"))
    assert '"value": "/begcare/station/vehicles"' in text
    assert '"value": "/begcare/station/profile"' in text
    assert '"value": "/market/dashboard"' not in text


def test_settings_are_for_the_default_login_type_only(client):
    user = make_user(login_type="saml")
    sign_in(client, user)
    assert client.get("/user").status_code == 404


# --- landing page -----------------------------------------------------------------------------


def test_a_custom_list_chosen_as_landing_page_is_where_the_next_visit_lands(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    own = db.session.scalars(select(CustomList).where(CustomList.user_id == seller.id)).first()
    response = _patch(client, token, landingPage=f"/custom-list/{own.id}/list")
    assert response.status_code == 200
    assert response.get_json()["options"]["landingPage"] == f"/custom-list/{own.id}/list"
    assert client.get("/").headers["Location"] == f"/custom-list/{own.id}/list"


def test_another_users_list_is_refused_as_landing_page(as_demo):
    client, token = as_demo("seller")
    other = db.session.scalars(
        select(CustomList).where(CustomList.user_id != demo_user("seller@demo.test").id)
    ).first()
    list_id = other.id if other else 99999
    response = _patch(client, token, landingPage=f"/custom-list/{list_id}/list")
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"landingPage": "INVALID_VALUE"}
    assert "landingPage" not in (demo_user("seller@demo.test").options or {})


def test_a_landing_page_the_user_may_not_open_is_refused_and_falls_back(as_demo):
    client, token = as_demo("station")
    response = _patch(client, token, landingPage="/market/dashboard")
    assert response.status_code == 422
    # Stored earlier (say, before the market was taken away): the landing rule falls back.
    station = demo_user("station@demo.test")
    station.options = {**(station.options or {}), "landingPage": "/market/dashboard"}
    db.session.flush()
    assert client.get("/").headers["Location"] == "/begcare"


def test_the_default_landing_page_is_the_first_module(as_demo):
    client, token = as_demo("seller")
    assert _patch(client, token, landingPage="").status_code == 200
    assert client.get("/").headers["Location"] == "/begcare"


# --- time zone --------------------------------------------------------------------------------


def _task_page(client, seller):
    """An item page of the seller's company showing a task's start time."""
    row = db.session.execute(
        select(ItemStationTask, PreparationItem)
        .join(PreparationItem, PreparationItem.id == ItemStationTask.item_id)
        .where(
            ItemStationTask.started_at.is_not(None),
            PreparationItem.instance_id == seller.active_instance_id,
            PreparationItem.module == "begcare",
        )
        .order_by(ItemStationTask.id)  # the same task each time (PostgreSQL may start a scan
        .execution_options(all_instances=True)  # where another backend's scan is)
    ).first()
    task, item = row
    return task, page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))


def test_times_on_pages_follow_the_users_time_zone_at_once(as_demo):
    client, token = as_demo("seller")
    seller = demo_user("seller@demo.test")
    task, text = _task_page(client, seller)
    stockholm = task.started_at.astimezone(pytz.timezone("Europe/Stockholm"))
    assert stockholm.strftime("%Y-%m-%d %H:%M") in text

    assert _patch(client, token, timeZone="America/New_York").status_code == 200
    _task, text = _task_page(client, seller)
    new_york = task.started_at.astimezone(pytz.timezone("America/New_York"))
    assert new_york.strftime("%Y-%m-%d %H:%M") in text
    assert stockholm.strftime("%Y-%m-%d %H:%M") != new_york.strftime("%Y-%m-%d %H:%M")


def test_an_unknown_time_zone_is_refused_with_its_key(as_demo):
    client, token = as_demo("seller")
    response = _patch(client, token, timeZone="Mars/Olympus")
    assert response.status_code == 422
    assert response.get_json()["keys"] == {"timeZone": "INVALID_VALUE"}
    assert demo_user("seller@demo.test").options["timeZone"] == "Europe/Stockholm"
    # The API document lists the zones it takes (schemathesis found "000…" passing it).
    doc = client.get("/api/openapi.json").get_json()
    zone = doc["components"]["schemas"]["OptionsBody"]["properties"]["timeZone"]["anyOf"][0]
    assert "Europe/Stockholm" in zone["enum"] and "Mars/Olympus" not in zone["enum"]


def test_without_a_choice_the_zone_is_the_users_countrys():
    instance = make_instance()  # Sweden
    assert user_time_zone(make_user(instance)) == "Europe/Stockholm"
    assert user_time_zone(demo_or_norway()) == "Europe/Oslo"


def demo_or_norway():
    instance = make_instance()
    from app.core.models import Country

    country = db.session.scalars(
        select(Country)
        .where(Country.instance_id == instance.id)
        .execution_options(all_instances=True)
    ).one()
    country.code = "NO"
    db.session.flush()
    return make_user(instance)


def test_mails_are_written_in_the_recipients_time_zone(app):
    from app.mail.services import send_mail

    user = make_user(options={"timeZone": "Asia/Tokyo"})
    with app.test_request_context():
        mail = send_mail(
            to=user.email,
            template="password_reset",
            kind="test",
            language="en-GB",
            time_zone=user_time_zone(user),
            reset_url="https://x.test/r",
            user=user,
            hours=1,
        )
    assert mail.id  # rendered without error in Tokyo's zone
    from flask_babel import format_datetime

    from app.core.i18n import force_time_zone

    moment = pytz.utc.localize(datetime(2026, 1, 1, 12, 0))
    with app.test_request_context(), force_time_zone("Asia/Tokyo"):
        assert format_datetime(moment, "HH:mm") == "21:00"
    with app.test_request_context():
        assert format_datetime(moment, "HH:mm") == "12:00"  # a visitor reads UTC


# --- password ---------------------------------------------------------------------------------


def _change(client, token, current, new, verify):
    return client.post(
        "/user/password",
        data={
            "csrf_token": token,
            "current_password": current,
            "password": new,
            "verify_password": verify,
        },
    )


def test_the_password_change_follows_the_reset_rules(client):
    user = make_user()
    token = sign_in(client, user)
    weak = _change(client, token, PASSWORD, "short", "short")
    assert weak.status_code == 422
    assert message_key(weak, "password") == "PASSWORD_PATTERN"
    different = _change(client, token, PASSWORD, "Better-pass-2", "Better-pass-3")
    assert message_key(different, "verify_password") == "PASSWORDS_DOESNT_MATCH"
    missing = _change(client, token, PASSWORD, "Better-pass-2", "")
    assert message_key(missing, "verify_password") == "VERIFY_PASSWORD_REQUIRED"
    wrong = _change(client, token, "Not-my-pass-1", "Better-pass-2", "Better-pass-2")
    assert wrong.status_code == 422
    assert "The current password is not correct." in page_text(wrong)
    from app.auth.services import verify_password

    assert verify_password(user, PASSWORD)  # nothing was changed


def test_a_changed_password_keeps_this_session_and_ends_the_others(app, client):
    user = make_user()
    token = sign_in(client, user)
    elsewhere = app.test_client()
    sign_in(elsewhere, user)
    response = _change(client, token, PASSWORD, "Better-pass-2", "Better-pass-2")
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/user")
    assert client.get("/user").status_code == 200
    assert "PASSWORD_CHANGED" not in page_text(client.get("/user"))
    assert elsewhere.get("/user").status_code == 302  # signed out
    from app.auth.services import verify_password

    db.session.refresh(user)
    assert verify_password(user, "Better-pass-2")


# --- GET /api/me ------------------------------------------------------------------------------


def test_me_answers_the_users_custom_lists_and_saved_filters(as_demo):
    client, _token = as_demo("seller")
    data = client.get("/api/me").get_json()
    seller = demo_user("seller@demo.test")
    names = sorted(
        c.name
        for c in db.session.scalars(select(CustomList).where(CustomList.user_id == seller.id))
    )
    assert sorted(c["name"] for c in data["customLists"]) == names
    assert all(set(c) == {"id", "name"} for c in data["customLists"])
    items = data["dynamicListMenuItems"]
    assert items and all(set(i["dynamicList"]) == {"title", "uuid"} for i in items)
    assert "Elbilar i lager" in {i["dynamicList"]["title"] for i in items}


def test_me_answers_no_lists_for_a_global_user(as_demo):
    client, _token = as_demo("global")
    data = client.get("/api/me").get_json()
    assert data["customLists"] == [] and data["dynamicListMenuItems"] == []


def test_the_time_zone_hint_names_the_country(as_demo):
    client, _token = as_demo("buyer")
    text = _props(client.get("/user"))
    assert re.search(r'"countryTimeZone": "Europe/Oslo"', text)


def test_a_bid_link_mail_gives_the_end_of_bidding_in_the_buyers_zone(demo_app):
    """The buyer (Fjordauto, Norway, no zone chosen) reads Oslo time; the mail names it."""
    from app.core.tenancy import activate
    from app.mail.models import EmailMessage
    from app.market.bid_links import send_bid_links
    from app.market.models import Advert, InstanceGroup

    seller = demo_user("seller@demo.test")
    with demo_app.test_request_context():
        activate(seller.active_instance_id)
        advert = db.session.scalars(select(Advert).where(Advert.status == "published")).first()
        advert.ends_at = datetime(2026, 7, 1, 10, 0, tzinfo=pytz.utc)  # summer: Oslo is UTC+2
        group = db.session.get(InstanceGroup, advert.seller_group_id)
        assert send_bid_links(advert, group) >= 1
        mail = db.session.scalars(
            select(EmailMessage)
            .where(EmailMessage.to_address == "buyer@demo.test")
            .order_by(EmailMessage.id.desc())
            .execution_options(all_instances=True)
        ).first()
        activate(None)
    assert "2026-07-01 12:00 (Oslo, CEST)" in mail.body_text
    assert "2026-07-01 12:00 (Oslo, CEST)" in mail.body_html


def test_my_events_as_landing_page_falls_back_when_the_company_turns_it_off(as_demo):
    client, token = as_demo("seller")
    assert _patch(client, token, landingPage="/my-events").status_code == 200
    assert client.get("/").headers["Location"] == "/my-events"
    seller = demo_user("seller@demo.test")
    instance = seller.active_instance
    instance.options = {**instance.options, "configuration": {"enable_my_events": False}}
    db.session.flush()
    assert client.get("/").headers["Location"] == "/begcare"
    assert client.get("/my-events").status_code == 404


def test_interactions_is_no_longer_a_route(client, as_demo):
    assert client.get("/interactions").status_code in (302, 401)  # a visitor: sign in first
    signed_in, _token = as_demo("seller")
    response = signed_in.get("/interactions")
    assert response.status_code == 404  # not-found, like any unknown path


def test_the_demo_station_user_lands_on_the_vehicles_at_their_station(as_demo):
    client, _token = as_demo("station")
    assert client.get("/").headers["Location"] == "/begcare/station/vehicles"
    page = client.get("/begcare/station/vehicles")
    assert page.status_code == 200 and "Wash" in page_text(page)  # Tvätt, read in English
