"""The entered-words gate (issue 37, point 7): every demo user in each of the seven languages
opens the pages that show entered content (a vehicle, the station pages, the overview with its
filters, statistics, dashboards, the market's adverts, a quick test, a purchase analysis, admin
lists), and no page shows a text that an administrator entered for ANOTHER language where the
row has one for the page's language.

The entered texts are found generically: every JSON column of the metadata whose name ends in
`_texts` ({locale tag: text}, app.core.localized), so columns added later are covered without a
change here. A text counts as shown when it stands whole in the page's HTML (its visible text
and the islands' props): an element's text, a JSON string, or an item of a list ("A, B: C") -
not a word inside other words (a salesperson called "Kalle Säljare" is no field "Säljare"). A row without a text for the page's language is read in
its company's language on purpose: its texts are allowed, as are the page language's own texts.

In-process (the test client on the demo data): each user opens two of their pages in each
language, in turn, so that each page is read in several languages (84 pages in all).
"""

import re
from collections import defaultdict

import pytest
from flask import Flask
from sqlalchemy import JSON, select

from app.auth.models import User
from app.core.i18n import LOCALES
from app.core.settings import Tag
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import ItemStationTask, ItemTag, PreparationItem
from tests.helpers import page_text, sign_in

TAG = re.compile(r"<[^>]+>")
ITEM_LINK = re.compile(r'href="(/begcare/items/[a-z]+/\d+)"')

# Each demo user's pages; {vehicle}, {tag}, {advert}, {analysis} and {quicktest} are found in
# the demo data (first_link) for the user.
PAGES = {
    "admin@demo.test": ("{vehicle}", "/begcare/overview?advancedFilter[tag]={tag}",
                        "/admin/begcare/stations", "/admin/general/tags",
                        "/admin/begcare/locations", "/admin/begcare/station-groups"),
    "seller@demo.test": ("{vehicle}", "/begcare/overview?advancedFilter[tag]={tag}",
                         "/begcare/statistics", "/my-dashboard", "/begcare/dashboard",
                         "{analysis}", "{quicktest}"),
    "buyer@demo.test": ("/market/adverts/list", "{advert}", "/market/dashboard"),
    "station@demo.test": ("/begcare/station/vehicles", "/begcare/station/profile", "{vehicle}",
                          "/my-dashboard"),
    "divadmin@demo.test": ("{vehicle}", "/my-dashboard", "/admin/begcare/stations",
                           "/admin/begcare/locations"),
    "global@demo.test": ("/begcare/overview?advancedFilter[tag]={tag}", "{vehicle}"),
}  # fmt: skip
LISTS = {  # where a user's first advert, analysis and quick test are linked
    "advert": ("/market/adverts/list", re.compile(r'href="(/market/adverts/\d+)"')),
    "analysis": ("/purchase-analysis/list", re.compile(r'href="(/purchase-analysis/\d+)"')),
    # "{quicktest}": the seller's first quick test (its template's words in their languages).
    "quicktest": ("/quick-test", re.compile(r'href="(/quick-test/\d+)"')),
}


def _plain(text: str) -> str:
    return " ".join(TAG.sub(" ", text).split())


def entered_texts() -> list[tuple[str, dict]]:
    """(column, {tag: text}) of every row of every `*_texts` JSON column, in every instance."""
    found = []
    for table in db.metadata.sorted_tables:
        for column in table.columns:
            if column.name.endswith("_texts") and isinstance(column.type, JSON):
                rows = db.session.connection().execute(select(column)).scalars()
                found += [(f"{table.name}.{column.name}", texts) for texts in rows if texts]
    return found


def foreign_texts(rows: list[tuple[str, dict]], locale: str) -> dict[str, str]:
    """Text -> where it comes from, for the texts a `locale` page must not show: another
    language's text of a row that has one of its own for `locale`, unless that very text is
    allowed elsewhere (a `locale` text, or any text of a row read in its company's language)."""
    allowed, foreign = set(), {}
    for where, texts in rows:
        plain = {tag: _plain(str(text)) for tag, text in texts.items() if text}
        own = plain.get(locale)
        if not own:
            allowed.update(plain.values())
            continue
        allowed.add(own)
        for tag, text in plain.items():
            if text != own and len(text) >= 3:
                foreign.setdefault(text, f"{where} [{tag}], here {own!r}")
    return {text: where for text, where in foreign.items() if text not in allowed}


def shown(page: str, foreign: dict[str, str]) -> list[str]:
    """The foreign texts that stand whole in the page."""
    text = " ".join(page.split())
    return [
        f"{candidate!r} ({where})"
        for candidate, where in foreign.items()
        if re.search(rf'(?:^|[>"(]|: |, ) ?{re.escape(candidate)} ?(?=$|[<",.:;)]| \()', text)
    ]


def _vehicle_and_tag(user: User) -> dict:
    """A begcare vehicle the user sees with a tag, a place and station tasks (one shows the
    most entered names), and that tag."""
    activate(user.home_instance_id)
    stmt = (
        select(PreparationItem.id, ItemTag.tag_id)
        .join(ItemTag, ItemTag.item_id == PreparationItem.id)
        .where(
            PreparationItem.module == "begcare",
            PreparationItem.parking_location_id.is_not(None),
            PreparationItem.id.in_(select(ItemStationTask.item_id)),
        )
        .order_by(PreparationItem.id)
    )
    if not user.all_divisions:
        stmt = stmt.where(PreparationItem.division_id.in_([d.id for d in user.divisions]))
    found = db.session.execute(stmt).first()
    tag = found[1] if found else db.session.scalar(select(Tag.id).order_by(Tag.id))
    activate(None)
    return {"vehicle": found and f"/begcare/{found[0]}", "tag": tag}


def _first_link(client, key: str) -> str | None:
    path, link = LISTS[key]
    match = link.search(client.get(path, follow_redirects=True).get_data(as_text=True))
    return match.group(1) if match else None


def _paths(client, user: User) -> list[str]:
    places = _vehicle_and_tag(user)
    wanted = " ".join(PAGES[user.email])
    for key in LISTS:
        if "{" + key + "}" in wanted:
            places[key] = _first_link(client, key)
    paths = []
    for page in PAGES[user.email]:
        keys = re.findall(r"{(\w+)}", page)
        if all(places.get(k) for k in keys):
            paths.append(page.format(**places))
    return paths


def _with_lang(path: str, locale: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}lang={locale}"


def _get(client, path: str, locale: str):
    """The page in `locale`, asked for again at each redirect (which drops ?lang=; a user's own
    language would win over the cookie's)."""
    response = client.get(_with_lang(path, locale))
    while response.status_code in (301, 302, 303) and "lang=" not in response.location:
        response = client.get(_with_lang(response.location, locale))
    return response


def problems(app: Flask, client, emails=tuple(PAGES), per_language: int = 2) -> tuple[dict, int]:
    """(page in a language -> foreign texts it shows, pages opened)."""
    rows = entered_texts()
    foreign = {locale: foreign_texts(rows, locale) for locale in LOCALES}
    found, opened = defaultdict(list), 0
    for email in emails:
        user = db.session.scalars(select(User).where(User.email == email)).one()
        sign_in(client, user)
        paths = _paths(client, user)
        for n, locale in enumerate(LOCALES):
            turn = [paths[(n * per_language + k) % len(paths)] for k in range(per_language)]
            for path in dict.fromkeys(turn):
                response = _get(client, path, locale)
                assert response.status_code == 200, (email, path, locale, response.status_code)
                opened += 1
                if hits := shown(page_text(response), foreign[locale]):
                    found[f"{email} {locale} {path}"] = hits
    return dict(found), opened


def test_every_page_shows_entered_words_in_its_language(demo_app, demo_client):
    found, opened = problems(demo_app, demo_client)
    assert opened >= 70, opened  # the pages were found in the demo data
    assert not found, "\n".join(f"{page}: {', '.join(hits)}" for page, hits in found.items())


def test_the_gate_notices_a_name_in_another_language(demo_app, demo_client):
    """The control: a station whose English name is put in the Swedish slot too (as a page
    printing another language's text would show it) is found on the station user's pages."""
    activate(db.session.scalars(select(User).where(User.email == "station@demo.test")).one()
             .home_instance_id)  # fmt: skip
    rows = entered_texts()
    foreign = foreign_texts(rows, "sv-SE")
    assert "Wash" in foreign and "Tvätt" not in foreign
    assert shown("<strong>Wash</strong> and more", foreign)
    assert shown('{"station": "Wash"}', foreign) and shown("<li>Tvätt, Wash</li>", foreign)
    assert not shown("<strong>Tvätt</strong>, Washington, Wash basin", foreign)
    activate(None)


@pytest.mark.parametrize("locale", ["en-GB"])
def test_the_station_phone_names_the_station_in_the_readers_language(demo_app, demo_client, locale):
    user = db.session.scalars(select(User).where(User.email == "station@demo.test")).one()
    sign_in(demo_client, user)
    text = page_text(demo_client.get(f"/begcare/station/vehicles?lang={locale}"))
    assert "<strong>Wash</strong>" in text and ">Tvätt<" not in text
