"""Salespeople act (issue 30): the sale of a vehicle asks who sold it from the division's seller
users (admin/general/seller-users); the vehicle page, its history, the lists and the statistics
show it; a seller user who sold cannot be deleted; never another division's or instance's."""

import re

from sqlalchemy import select

from app.core.settings import SettingRow
from app.extensions import db
from app.preparation import salespeople
from app.preparation.models import PreparationItem
from app.preparation.statistics import FIGURES
from tests.helpers import page_text
from tests.preparation.manage_helpers import (
    alerts,
    demo_item,
    fresh_shell_caches,  # noqa: F401 - autouse
    in_seller_instance,
)


def seller_user(name: str, division_id: int | None, active: bool = True) -> SettingRow:
    """A seller user of the seller's instance, made for the test."""
    in_seller_instance()
    row = SettingRow(kind="seller", name=name, division_id=division_id, active=active, data={})
    db.session.add(row)
    db.session.flush()
    return row


def foreign_seller() -> SettingRow:
    """A seller user of the other instance (Fjordauto AS, the demo's)."""
    return db.session.scalars(
        select(SettingRow)
        .where(SettingRow.kind == "seller", SettingRow.name == "Ola Nordmann")
        .execution_options(all_instances=True)
    ).one()


def another_division_id(item: PreparationItem) -> int:
    in_seller_instance()
    return next(
        s.division_id
        for s in db.session.scalars(select(SettingRow).where(SettingRow.kind == "seller"))
        if s.division_id not in (None, item.division_id)
    )


def fresh(item: PreparationItem) -> PreparationItem:
    db.session.expire_all()
    return db.session.get(PreparationItem, item.id)


def sell(client, token, item, seller_id=None):
    data = {"csrf_token": token, "to_state": "7"}
    if seller_id is not None:
        data["salesperson_id"] = seller_id
    return client.post(f"/{item.module}/items/{item.id}/move", data=data)


def history_rows(html: str) -> list[str]:
    rows = re.findall(r'<tr data-kind="salesperson">(.*?)</tr>', html, re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r)).strip() for r in rows]


def test_the_sale_asks_who_sold_it_and_the_vehicle_shows_it(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    mine = seller_user("Tove Testsäljare", item.division_id)
    theirs = seller_user("Annan Säljare", another_division_id(item))
    page = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    dialog = re.search(r"<details class=\"sale-dialog\".*?</details>", page, re.S)
    assert dialog, "the sold button opens the salesperson's choice"
    assert "Tove Testsäljare" in dialog.group(0) and 'name="salesperson_id" required' in page
    assert "Annan Säljare" not in dialog.group(0) and "Ola Nordmann" not in dialog.group(0)

    # Without a salesperson the sale is refused and nothing moves.
    response = sell(client, token, item)
    assert response.status_code == 302
    page = page_text(client.get(response.headers["Location"], follow_redirects=True))
    assert ("danger", "Choose the salesperson who sold the vehicle.") in alerts(page)
    assert fresh(item).state == 6

    assert sell(client, token, item, mine.id).status_code == 302
    sold = fresh(item)
    assert (sold.state, sold.salesperson_id) == (7, mine.id)
    page = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    shown = re.search(r"<p data-salesperson>(.*?)</p>", page)
    assert shown and shown.group(1) == "Tove Testsäljare"
    assert any("Sold by Tove Testsäljare" in row and "Sara" in row for row in history_rows(page))

    # Changed on the vehicle page afterwards; the change is in the history too.
    other = seller_user("Ulf Testsäljare", None)  # the whole instance's: offered everywhere
    response = client.post(
        f"/begcare/items/{item.id}/salesperson",
        data={"csrf_token": token, "salesperson_id": other.id},
    )
    assert response.headers["Location"].endswith("#salesperson")
    page = page_text(client.get(response.headers["Location"], follow_redirects=True))
    assert ("success", f"{item.regno} was sold by Ulf Testsäljare.") in alerts(page)
    assert any(
        "Salesperson changed from Tove Testsäljare to Ulf Testsäljare" in row
        for row in history_rows(page)
    )
    assert theirs.id not in [s.id for s in salespeople.offered(fresh(item))]


def test_another_divisions_or_instances_or_an_inactive_salesperson_is_never_taken(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    elsewhere = seller_user("Annan Ort", another_division_id(item))
    gone = seller_user("Slutat", item.division_id, active=False)
    for seller_id in (elsewhere.id, gone.id, foreign_seller().id, 999_999):
        response = sell(client, token, item, seller_id)
        page = page_text(client.get(response.headers["Location"], follow_redirects=True))
        assert ("danger", "Choose one of the division's salespeople.") in alerts(page)
        assert (fresh(item).state, fresh(item).salesperson_id) == (6, None)
    page = page_text(client.get(f"/begcare/{item.id}", follow_redirects=True))
    assert "Slutat" not in page and "Ola Nordmann" not in page
    # Nor on the vehicle page's change, nor as a malformed value.
    sold = demo_item(7)
    before = sold.salesperson_id
    response = client.post(
        f"/begcare/items/{sold.id}/salesperson",
        data={"csrf_token": token, "salesperson_id": foreign_seller().id},
    )
    page = page_text(client.get(response.headers["Location"], follow_redirects=True))
    assert ("danger", "Choose one of the division's salespeople.") in alerts(page)
    assert fresh(sold).salesperson_id == before
    assert sell(client, token, item, "Kalle").status_code == 422


def test_the_statistics_break_the_sales_down_by_salesperson(as_demo):
    client, token = as_demo("seller")
    FIGURES.clear()
    item = demo_item(6)
    star = seller_user("Stina Stjärnsäljare", item.division_id)
    page = page_text(client.get("/begcare/statistics"))
    assert 'id="table-salespeople"' in page and "Stina Stjärnsäljare" not in page
    assert "Kalle Säljare" in page  # the demo's sales, by the demo's salespeople

    assert sell(client, token, item, star.id).status_code == 302
    page = page_text(client.get("/begcare/statistics"))
    table = re.search(r'<table class="table" id="table-salespeople">.*?</table>', page, re.S)
    row = re.search(r"Stina Stjärnsäljare</th><td class=\"num\">(\d+)</td>", table.group(0))
    assert row and row.group(1) == "1"
    assert '"Vehicles sold per salesperson"' in page or "Vehicles sold per salesperson" in page


def test_the_lists_show_and_filter_by_salesperson(as_demo):
    client, token = as_demo("seller")
    item = demo_item(6)
    star = seller_user("Filtrerad Säljare", item.division_id)
    sell(client, token, item, star.id)
    page = page_text(client.get(f"/begcare/overview?advancedFilter[salesperson]={star.id}&state=7"))
    assert item.regno in page and '<th scope="col">Salesperson</th>' in page
    assert re.search(r'<td class="item-seller">Filtrerad Säljare</td>', page)
    assert page.count('<td class="item-seller">') == 1  # nobody else sold for this one
    assert 'id="f-salesperson"' in page
    assert re.search(r">Filtrerad Säljare \(Nordbil [^)]+\)</option>", page)
    # Another instance's seller filters to nothing (and is not offered).
    page = page_text(
        client.get(f"/begcare/overview?advancedFilter[salesperson]={foreign_seller().id}")
    )
    assert "Ola Nordmann" not in page and '<td class="item-seller">' not in page


def test_a_seller_user_who_sold_cannot_be_deleted_and_says_by_how_many(as_demo):
    client, token = as_demo("admin")
    item = demo_item(6)
    row = seller_user("Borttagen Säljare", item.division_id)
    item.salesperson_id = row.id
    db.session.flush()
    row_id = row.id
    listed = page_text(client.get("/admin/general/seller-users?q=Borttagen"))
    row_html = re.search(r"<tr[^>]*>(?:(?!</tr>).)*Borttagen Säljare.*?</tr>", listed, re.S).group(
        0
    )
    assert "In use" in row_html and "/delete" not in row_html
    assert re.search(r">\s*1\s*</td>", row_html), "the vehicles sold column"
    path = f"/admin/general/seller-users/{row_id}/delete"
    page = page_text(client.get(path))
    assert "1 vehicle was sold by this salesperson." in page
    assert client.post(path, data={"csrf_token": token}).status_code == 409
    assert db.session.get(SettingRow, row_id) is not None
    item.salesperson_id = None
    db.session.flush()
    assert client.post(path, data={"csrf_token": token}).status_code == 302
    db.session.expire_all()
    assert db.session.get(SettingRow, row_id) is None


def test_the_seller_users_division_is_a_choice_of_the_viewers_divisions(as_demo):
    client, token = as_demo("admin")
    page = page_text(client.get("/admin/general/seller-users/new"))
    choice = re.search(r'<select[^>]*name="division_id".*?</select>', page, re.S)
    assert choice and "Nordbil Solna" in choice.group(0) and "Fjordauto" not in choice.group(0)
    foreign_division = db.session.scalars(
        select(SettingRow.division_id)
        .where(SettingRow.kind == "seller", SettingRow.division_id.is_not(None))
        .where(SettingRow.instance_id == foreign_seller().instance_id)
        .execution_options(all_instances=True)
    ).first()
    response = client.post(
        "/admin/general/seller-users/new",
        data={"csrf_token": token, "name": "Fel Ort", "active": "y",
              "division_id": foreign_division},
    )  # fmt: skip
    assert response.status_code == 422
    assert "Fel Ort" in page_text(response)  # the input is kept
    in_seller_instance()
    assert db.session.scalar(select(SettingRow).where(SettingRow.name == "Fel Ort")) is None
