"""The signed-in advert screens: the market list, the seller's and buyer's lists, an advert's
page, adding and editing adverts, bid-link e-mails, rights, isolation and query counts."""

import io
import re
from datetime import timedelta

import pytest
from PIL import Image
from sqlalchemy import event, func, select

from app.auth.models import User
from app.core.models import utcnow
from app.core.tenancy import activate
from app.extensions import db
from app.mail.models import EmailMessage
from app.market.adverts import advert_images
from app.market.invites import create_market_company
from app.market.models import Advert, AdvertImage, MarketLink
from app.preparation.items import active_advert_ids
from app.preparation.models import FileObject, PreparationItem
from tests.helpers import message_key, page_text
from tests.market._adverts import (
    demo_login,
    demo_user,
    group_named,
    make_advert,
    nordbil,
    sign_in_english,
)

LIST = "/market/adverts/list"


@pytest.fixture
def as_demo(demo_client):
    """`as_demo("buyer")`: the demo client signed in as buyer@demo.test → (client, token)."""
    return demo_login(demo_client)


def demo_adverts(status: str) -> list[Advert]:
    return list(
        db.session.scalars(
            select(Advert)
            .where(Advert.status == status)
            .order_by(Advert.id)
            .execution_options(all_instances=True)
        )
    )


def row_ids(response) -> list[int]:
    return [int(i) for i in re.findall(r'data-advert-id="(\d+)"', response.get_data(as_text=True))]


def hrefs(response, marker: str) -> list[str]:
    html = response.get_data(as_text=True)
    return re.findall(rf'href="([^"]+)" {marker}', html)


def count_queries(client, path: str) -> int:
    statements = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    assert client.get(path).status_code == 200  # warm the caches; links made on first sight
    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        assert client.get(path).status_code == 200
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)
    return len(statements)


def outsider(name: str = "Utsider Bil AS", seller: bool = False):
    """A company on the market that is nobody's partner, with one market user."""
    instance, group = create_market_company(name, "NO", "NOK", buyer=not seller)
    group.seller = seller
    user = User(
        email=f"{name.split()[0].lower()}@outsider.test",
        firstname="Otto",
        lastname="Utsider",
        roles=["ROLE_USER"],
        modules=["market"],
        options={"language": "en-GB"},
        all_divisions=True,
        home_instance_id=instance.id,
        active_instance_id=instance.id,
    )
    user.instances = [instance]
    db.session.add(user)
    db.session.flush()
    activate(None)
    return group, user


def png(size=(40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def form_values(token: str, **changes) -> dict:
    ends = (utcnow() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    values = {
        "csrf_token": token,
        "regno": "abc 123",
        "brand": "Volvo",
        "model": "XC60 B4",
        "model_year": "2021",
        "mileage": "48 500",
        "fuel_type": "Diesel",
        "color": "Silver",
        "description": "One owner.\nFull service history.",
        "start_price": "215 000",
        "bid_step": "2000",
        "ends_at": ends,
        "action": "publish",
    }
    values.update(changes)
    return {k: v for k, v in values.items() if v is not None}


# --- the market list -------------------------------------------------------------------------


def test_buyer_sees_partners_published_adverts_with_its_own_bid_links(as_demo):
    client, _ = as_demo("buyer")
    buyer, fjord = demo_user("buyer@demo.test"), group_named("Fjordauto AS")
    response = client.get(LIST)
    assert response.status_code == 200
    published = demo_adverts("published")
    assert sorted(row_ids(response)) == sorted(a.id for a in published)
    text = page_text(response)
    assert "Nordbil AB" in text
    assert "Leading" in text  # Fjordauto is the only bidder on the second demo advert
    assert "Outbid" in text  # and Malmö's 190 000 SEK beats its 191 500 NOK on the first
    links = hrefs(response, "data-bid-link")
    assert len(links) == len(published)
    for path in links:
        _, _, action, group_hash, advert_hash, user_hash = path.split("/")
        assert (action, group_hash) == ("bid", fjord.hash)
        link = db.session.scalars(
            select(MarketLink)
            .where(MarketLink.hash == user_hash)
            .execution_options(all_instances=True)
        ).one()
        assert (link.user_id, link.kind, link.group_id) == (buyer.id, "bid", fjord.id)
        assert db.session.get(Advert, link.advert_id).hash == advert_hash


def test_each_buyer_gets_a_bid_link_of_its_own(as_demo, demo_app):
    client, _ = as_demo("buyer")
    fjord_links = set(hrefs(client.get(LIST), "data-bid-link"))
    sign_in_english(client, demo_user("malmo@demo.test"))
    malmo_links = set(hrefs(client.get(LIST), "data-bid-link"))
    assert fjord_links and malmo_links and not fjord_links & malmo_links
    malmo = group_named("Malmö Bilcenter AB")
    assert all(f"/bid/{malmo.hash}/" in path for path in malmo_links)


def test_the_bid_link_opens_the_public_bid_page(as_demo, demo_app):
    client, _ = as_demo("buyer")
    path = hrefs(client.get(LIST), "data-bid-link")[0]
    if any(r.rule.startswith("/market-bid/") for r in demo_app.url_map.iter_rules()):
        assert client.get(path).status_code == 200
    else:
        assert db.session.scalars(
            select(MarketLink)
            .where(MarketLink.hash == path.rsplit("/", 1)[1])
            .execution_options(all_instances=True)
        ).one()


def test_seller_sees_its_own_published_adverts_with_manage(as_demo):
    client, _ = as_demo("seller")
    response = client.get(LIST)
    assert sorted(row_ids(response)) == sorted(a.id for a in demo_adverts("published"))
    text = page_text(response)
    assert "Manage" in text and "data-bid-link" not in response.get_data(as_text=True)


def test_search_narrows_the_list_and_says_when_nothing_matches(as_demo):
    client, _ = as_demo("buyer")
    first = demo_adverts("published")[0]
    response = client.get(f"{LIST}?q={first.regno.lower()}")
    assert row_ids(response) == [first.id]
    response = client.get(f"{LIST}?q=zzzz%25")
    assert row_ids(response) == []
    assert "No advert matches “zzzz%”." in page_text(response)


def test_the_list_pages_through_many_adverts(as_demo):
    client, _ = as_demo("buyer")
    for _n in range(26):
        make_advert(nordbil())
    first, second = client.get(LIST), client.get(f"{LIST}?page=2")
    assert len(row_ids(first)) == 25
    assert len(row_ids(second)) == 3 + 26 - 25
    assert not set(row_ids(first)) & set(row_ids(second))
    assert "26–29 of 29 adverts" in page_text(second)


def test_list_queries_stay_constant_as_adverts_grow(as_demo):
    client, _ = as_demo("buyer")
    few = count_queries(client, LIST)
    for _n in range(12):
        make_advert(nordbil())
    many = count_queries(client, LIST)
    assert few == many
    client, _ = as_demo("seller")
    few = count_queries(client, "/market/adverts/my-adverts")
    for _n in range(12):
        make_advert(nordbil(), status="closed")
    assert count_queries(client, "/market/adverts/my-adverts") == few
    client, _ = as_demo("buyer")
    few = count_queries(client, "/market/adverts/my-allocations")
    fjord = group_named("Fjordauto AS")
    for _n in range(5):
        make_advert(nordbil(), status="allocated", allocated_group_id=fjord.id, allocated_price=1)
    assert count_queries(client, "/market/adverts/my-allocations") == few


def test_a_buyer_that_is_nobodys_partner_sees_no_adverts(client):
    _group, user = outsider()
    sign_in_english(client, user)
    response = client.get(LIST)
    assert response.status_code == 200
    assert row_ids(response) == []
    assert "There are no adverts on the market right now." in page_text(response)


# --- the seller's lists ------------------------------------------------------------------------


def test_my_adverts_lists_drafts_published_closed_and_withdrawn_with_their_links(as_demo):
    client, _ = as_demo("seller")
    response = client.get("/market/adverts/my-adverts")
    ids = set(row_ids(response))
    # The demo's provisional sale (ended under its reserve) waits for the seller here too.
    provisional = {a.id for a in demo_adverts("provisional")}
    assert provisional and ids == provisional | {
        a.id for s in ("draft", "published") for a in demo_adverts(s)
    }
    text = page_text(response)
    assert "Draft" in text and "Published" in text and "Send bid links" in text
    allocate = hrefs(response, "data-allocate-link")
    change = hrefs(response, "data-change-status-link")
    with_bids = [a for a in demo_adverts("published") if a.bid_count]
    assert len(allocate) == len(with_bids)
    assert len(change) == len(ids - provisional)  # decided on its page, not by a status
    # The sale waiting for the seller's answer leads to that page.
    assert hrefs(response, "data-decide-link") == [f"/market/adverts/{a}" for a in provisional]
    seller = demo_user("seller@demo.test")
    for path in allocate + change:
        link = db.session.scalars(
            select(MarketLink)
            .where(MarketLink.hash == path.rsplit("/", 1)[1])
            .execution_options(all_instances=True)
        ).one()
        assert (link.user_id, link.kind) == (seller.id, "seller")
    assert all(p.startswith(f"/market-bid/allocate/{nordbil().hash}/") for p in allocate)


def test_my_assigned_and_my_sold_name_the_buyer_and_price(as_demo):
    client, _ = as_demo("seller")
    allocated, sold = demo_adverts("allocated")[0], demo_adverts("sold")[0]
    response = client.get("/market/adverts/my-assigned")
    assert row_ids(response) == [allocated.id]
    text = page_text(response)
    assert allocated.allocated_group.name in text
    assert "Collection from Solna" in text
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", text)
    response = client.get("/market/adverts/my-sold")
    assert row_ids(response) == [sold.id]
    assert sold.allocated_group.name in page_text(response)


def test_empty_seller_lists_say_so(client):
    group, user = outsider("Tom Säljare AS", seller=True)
    user.modules = ["market"]
    sign_in_english(client, user)
    for name, text in (
        ("my-adverts", "You have no adverts yet."),
        ("my-assigned", "No advert is allocated to a buyer right now."),
        ("my-sold", "You have not sold any advert yet."),
    ):
        response = client.get(f"/market/adverts/{name}")
        assert response.status_code == 200
        assert text in page_text(response)


def test_send_bid_links_mails_every_partner_buyer_user(as_demo):
    client, token = as_demo("seller")
    advert = demo_adverts("published")[0]
    before = db.session.scalar(select(func.count()).select_from(EmailMessage))
    response = client.post(
        f"/market/adverts/{advert.id}/send-bid-links", data={"csrf_token": token}
    )
    assert response.status_code == 302
    mails = db.session.scalars(select(EmailMessage).order_by(EmailMessage.id)).all()[before:]
    assert sorted(m.to_address for m in mails) == ["buyer@demo.test", "malmo@demo.test"]
    page = page_text(client.get(response.location))
    assert "Bid links were sent to 2 people." in page
    assert "Ole Hansen" in page and "Maja Persson" in page and "E-mailed" in page
    assert client.post(f"/market/adverts/{advert.id}/send-bid-links").status_code == 400


# --- the buyer's lists -------------------------------------------------------------------------


def test_my_allocations_and_my_deals_show_what_was_allocated_or_sold_to_the_buyer(as_demo):
    allocated, sold = demo_adverts("allocated")[0], demo_adverts("sold")[0]
    fjord = group_named("Fjordauto AS")
    assert allocated.allocated_group_id == fjord.id != sold.allocated_group_id
    client, _ = as_demo("buyer")
    response = client.get("/market/adverts/my-allocations")
    assert row_ids(response) == [allocated.id]
    assert "Nordbil AB" in page_text(response)
    response = client.get("/market/adverts/my-deals")
    assert row_ids(response) == []
    assert "Your company has no completed deals yet." in page_text(response)
    sign_in_english(client, demo_user("malmo@demo.test"))
    assert row_ids(client.get("/market/adverts/my-deals")) == [sold.id]
    assert row_ids(client.get("/market/adverts/my-allocations")) == []


# --- rights and isolation ----------------------------------------------------------------------


def test_each_page_needs_its_menu_entrys_right(as_demo):
    client, _ = as_demo("buyer")
    for path in (
        "/market/adverts/my-adverts",
        "/market/adverts/my-assigned",
        "/market/adverts/my-sold",
        "/market/advert/add",
    ):
        assert client.get(path).status_code == 403, path
    client, _ = as_demo("seller")
    for path in ("/market/adverts/my-allocations", "/market/adverts/my-deals"):
        assert client.get(path).status_code == 403, path
    client, _ = as_demo("station")  # no market module
    for path in (LIST, "/market/adverts/my-adverts", "/market/advert/add"):
        assert client.get(path).status_code == 404, path
    advert = demo_adverts("published")[0]
    assert client.get(f"/market/adverts/{advert.id}").status_code == 404


def test_another_instances_advert_is_not_found(as_demo, client):
    other_group, other_user = outsider("Annan Säljare AS", seller=True)
    theirs = make_advert(other_group)
    client_, token = as_demo("seller")
    for path in (
        f"/market/adverts/{theirs.id}",
        f"/market/adverts/{theirs.id}/edit",
        f"/market/adverts/{theirs.id}/images/1",
    ):
        assert client_.get(path).status_code == 404, path
    response = client_.post(
        f"/market/adverts/{theirs.id}/send-bid-links", data={"csrf_token": token}
    )
    assert response.status_code == 404
    # A buyer that is not a partner of Nordbil cannot open Nordbil's adverts either.
    ours = demo_adverts("published")[0]
    sign_in_english(client, other_user)
    assert client.get(f"/market/adverts/{ours.id}").status_code == 404
    outsider_buyer = outsider("Fremmed Bil AS")[1]
    sign_in_english(client, outsider_buyer)
    assert client.get(f"/market/adverts/{ours.id}").status_code == 404


def test_a_buyer_cannot_open_a_partners_draft_or_another_buyers_deal(as_demo):
    client, _ = as_demo("buyer")
    assert client.get(f"/market/adverts/{demo_adverts('draft')[0].id}").status_code == 404
    assert client.get(f"/market/adverts/{demo_adverts('sold')[0].id}").status_code == 404
    assert client.get(f"/market/adverts/{demo_adverts('allocated')[0].id}").status_code == 200


# --- an advert's page --------------------------------------------------------------------------


def test_the_seller_sees_every_bidder_and_both_currencies(as_demo):
    client, _ = as_demo("seller")
    advert = demo_adverts("published")[0]  # bids from Malmö (SEK) and Fjordauto (NOK)
    text = page_text(client.get(f"/market/adverts/{advert.id}"))
    assert "Malmö Bilcenter AB" in text and "Fjordauto AS" in text
    assert "191,500\u00a0NOK" in text
    assert "Allocate" in text and "Change status" in text


def test_a_buyer_sees_no_other_bidders_name(as_demo):
    client, _ = as_demo("buyer")
    advert = demo_adverts("published")[0]
    response = client.get(f"/market/adverts/{advert.id}")
    text = page_text(response)
    assert response.status_code == 200
    assert "Malmö Bilcenter AB" not in text
    assert "Another bidder" in text and "Fjordauto AS" in text
    assert "Your company has been outbid" in text  # Malmö's 190 000 SEK > 191 500 NOK
    assert "191,500\u00a0NOK" in text  # its own bid in its own currency
    second = demo_adverts("published")[1]  # Fjordauto's is the only bid
    assert "Your company has the highest bid" in page_text(
        client.get(f"/market/adverts/{second.id}")
    )
    assert len(hrefs(response, "data-bid-link")) == 1
    assert "Allocate" not in text


# --- adding an advert --------------------------------------------------------------------------


def test_publishing_a_typed_advert_sends_a_bid_link_to_every_buyer_user(as_demo, demo_app):
    client, token = as_demo("seller")
    before = db.session.scalar(select(func.count()).select_from(EmailMessage))
    response = client.post("/market/advert/add", data=form_values(token))
    assert response.status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    assert (advert.status, advert.currency, advert.start_price, advert.bid_step) == (
        "published", "SEK", 215_000, 2_000,
    )  # fmt: skip
    assert advert.mileage == 48_500 and advert.published_at is not None
    assert advert.description == "One owner.\nFull service history."
    assert advert.item_id is None
    mails = db.session.scalars(select(EmailMessage).order_by(EmailMessage.id)).all()[before:]
    assert {m.to_address: m.language for m in mails} == {
        "buyer@demo.test": "nb-NO",
        "malmo@demo.test": "sv-SE",
    }
    links = db.session.scalars(
        select(MarketLink)
        .where(MarketLink.advert_id == advert.id, MarketLink.kind == "bid")
        .execution_options(all_instances=True)
    ).all()
    assert len(links) == 2 and all(link.sent_at is not None for link in links)
    to_buyer = next(m for m in mails if m.to_address == "buyer@demo.test")
    path = re.search(r"https?://[^/\s]+(/market-bid/bid/\S+)", to_buyer.body_text).group(1)
    assert path.endswith(
        next(lk.hash for lk in links if lk.user_id == demo_user("buyer@demo.test").id)
    )
    if any(r.rule.startswith("/market-bid/") for r in demo_app.url_map.iter_rules()):
        assert client.get(path).status_code == 200
    page = page_text(client.get(response.location))
    assert "Bid links were sent to 2 people." in page


def test_saving_a_draft_sends_nothing(as_demo):
    client, token = as_demo("seller")
    before = db.session.scalar(select(func.count()).select_from(EmailMessage))
    response = client.post("/market/advert/add", data=form_values(token, action="draft"))
    assert response.status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    assert advert.status == "draft" and advert.published_at is None
    assert db.session.scalar(select(func.count()).select_from(EmailMessage)) == before


def test_bad_input_shows_messages_under_fields_and_keeps_it(as_demo):
    client, token = as_demo("seller")
    past = (utcnow() - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(
        "/market/advert/add",
        data=form_values(token, regno="", start_price="0", bid_step="1,5", ends_at=past),
    )
    assert response.status_code == 422
    text = page_text(response)
    assert message_key(response, "regno") == "FIELD_REQUIRED"
    assert "Enter an amount above zero." in text
    assert "Enter a whole number, without decimals." in text
    assert "Choose a time in the future." in text
    assert 'value="XC60 B4"' in text and "One owner." in text  # the input is kept
    assert db.session.scalar(select(func.count()).select_from(Advert).where(Advert.model == "XC60 B4").execution_options(all_instances=True)) == 0  # fmt: skip


def test_images_are_checked_by_content_and_nothing_is_half_saved(as_demo):
    client, token = as_demo("seller")
    files_before = db.session.scalar(select(func.count()).select_from(FileObject).execution_options(all_instances=True))  # fmt: skip
    data = form_values(token)
    data["images"] = [
        (io.BytesIO(png()), "front.png"),
        (io.BytesIO(b"MZ" + b"\0" * 300), "rear.jpg"),
    ]
    response = client.post("/market/advert/add", data=data, content_type="multipart/form-data")
    assert response.status_code == 422
    text = page_text(response)
    assert "rear.jpg: Only JPEG, PNG and WebP images and PDF documents can be uploaded." in text
    assert "Choose the images again before you save." in text
    assert db.session.scalar(select(func.count()).select_from(Advert).where(Advert.regno == "ABC123").execution_options(all_instances=True)) == 0  # fmt: skip
    assert db.session.scalar(select(func.count()).select_from(FileObject).execution_options(all_instances=True)) == files_before  # fmt: skip


def test_an_advert_keeps_its_images_and_partners_see_them(as_demo):
    client, token = as_demo("seller")
    data = form_values(token)
    data["images"] = [(io.BytesIO(png()), "front.png"), (io.BytesIO(png((20, 20))), "rear.png")]
    response = client.post("/market/advert/add", data=data, content_type="multipart/form-data")
    assert response.status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    images = db.session.scalars(select(AdvertImage).where(AdvertImage.advert_id == advert.id).order_by(AdvertImage.position)).all()  # fmt: skip
    assert len(images) == 2
    client, _ = as_demo("buyer")
    image = client.get(f"/market/adverts/{advert.id}/images/{images[0].id}")
    assert image.status_code == 200 and image.data == png()
    assert image.mimetype == "image/png"
    small = client.get(f"/market/adverts/{advert.id}/images/{images[0].id}?size=small")
    assert small.mimetype == "image/jpeg"


def test_an_advert_from_a_vehicle_in_stock(as_demo):
    client, token = as_demo("seller")
    activate(nordbil().instance_id)
    item = db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.module == "begcare", PreparationItem.state != 9)
        .order_by(PreparationItem.id.desc())
    ).first()
    activate(None)
    found = client.get(f"/market/advert/add?item_q={item.regno[:4].lower()}")
    assert f"/market/advert/add?item_id={item.id}" in found.get_data(as_text=True)
    form = client.get(f"/market/advert/add?item_id={item.id}")
    text = page_text(form)
    assert f'value="{item.regno}"' in text and f'value="{item.brand}"' in text
    assert f"Filled in from {item.regno} in stock." in text
    data = form_values(
        token, item_id=str(item.id), regno=item.regno, brand=item.brand, model=item.model
    )
    assert client.post("/market/advert/add", data=data).status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.item_id == item.id)).one()
    assert advert.regno == item.regno
    activate(nordbil().instance_id)
    assert active_advert_ids([item.id]) == {item.id}


def test_another_instances_item_cannot_be_used(as_demo):
    client, token = as_demo("seller")
    other = db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.instance_id != nordbil().instance_id)
        .execution_options(all_instances=True)
    ).first()
    assert other is not None
    text = page_text(client.get(f"/market/advert/add?item_id={other.id}"))
    assert f'value="{other.regno}"' not in text
    data = form_values(token, item_id=str(other.id))
    assert client.post("/market/advert/add", data=data).status_code == 302
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    assert advert.item_id is None


def test_a_draft_can_be_edited_and_published_but_not_a_published_advert(as_demo):
    client, token = as_demo("seller")
    draft = demo_adverts("draft")[0]
    form = client.get(f"/market/adverts/{draft.id}/edit")
    assert form.status_code == 200 and f'value="{draft.regno}"' in page_text(form)
    data = form_values(token, regno=draft.regno, start_price="399 000")
    assert client.post(f"/market/adverts/{draft.id}/edit", data=data).status_code == 302
    db.session.refresh(draft)
    assert (draft.status, draft.start_price, draft.model) == ("published", 399_000, "XC60 B4")
    response = client.get(f"/market/adverts/{draft.id}/edit")
    assert response.status_code == 302


def test_a_drafts_images_can_be_removed_and_the_rest_keep_their_order(as_demo):
    client, token = as_demo("seller")
    data = form_values(token, action="draft")
    data["images"] = [(io.BytesIO(png((10 + i, 10))), f"{i}.png") for i in range(3)]
    client.post("/market/advert/add", data=data, content_type="multipart/form-data")
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    first, second, third = (image.id for image in advert_images(advert.id))
    form = page_text(client.get(f"/market/adverts/{advert.id}/edit"))
    assert f'name="remove_image" value="{second}"' in form and "Remove image 2" in form
    # Another advert's image id in the form is ignored.
    data = form_values(token, action="draft", regno="DEF456")
    data["images"] = [(io.BytesIO(png()), "other.png")]
    client.post("/market/advert/add", data=data, content_type="multipart/form-data")
    other = db.session.scalars(select(Advert).where(Advert.regno == "DEF456")).one()
    (other_image,) = (image.id for image in advert_images(other.id))
    files = db.session.scalar(select(func.count()).select_from(FileObject).execution_options(all_instances=True))  # fmt: skip
    data = form_values(token, action="draft")
    data["remove_image"] = [str(second), str(other_image), str(10**9)]
    response = client.post(f"/market/adverts/{advert.id}/edit", data=data)
    assert response.status_code == 302
    db.session.expire_all()
    assert [(i.id, i.position) for i in advert_images(advert.id)] == [(first, 0), (third, 1)]
    assert [image.id for image in advert_images(other.id)] == [other_image]
    assert db.session.scalar(select(func.count()).select_from(FileObject).execution_options(all_instances=True)) == files - 1  # fmt: skip
    assert client.get(f"/market/adverts/{advert.id}/images/{second}").status_code == 404


def test_a_draft_holds_at_most_twenty_images(as_demo, monkeypatch):
    monkeypatch.setattr("app.market.advert_editing.MAX_IMAGES", 2)
    client, token = as_demo("seller")
    data = form_values(token, action="draft")
    data["images"] = [(io.BytesIO(png()), "a.png"), (io.BytesIO(png()), "b.png")]
    client.post("/market/advert/add", data=data, content_type="multipart/form-data")
    advert = db.session.scalars(select(Advert).where(Advert.regno == "ABC123")).one()
    data = form_values(token, action="draft", model="XC60 B5")
    data["images"] = [(io.BytesIO(png()), "c.png")]
    response = client.post(
        f"/market/adverts/{advert.id}/edit", data=data, content_type="multipart/form-data"
    )
    assert response.status_code == 422
    text = page_text(response)
    assert "An advert holds at most 2 images: remove some or choose fewer." in text
    assert 'value="XC60 B5"' in text  # the input is kept, nothing is saved
    db.session.expire_all()
    assert advert.model == "XC60 B4" and len(advert_images(advert.id)) == 2
    # Removing one makes room for the new one.
    data = form_values(token, action="draft")
    data["images"] = [(io.BytesIO(png()), "c.png")]
    data["remove_image"] = [str(advert_images(advert.id)[0].id)]
    response = client.post(
        f"/market/adverts/{advert.id}/edit", data=data, content_type="multipart/form-data"
    )
    assert response.status_code == 302
    db.session.expire_all()
    assert len(advert_images(advert.id)) == 2


# --- the blue callout's items ------------------------------------------------------------------


def test_active_advert_ids_are_items_with_a_published_closed_or_allocated_advert(demo_app):
    group = nordbil()
    activate(group.instance_id)
    by_status = {}
    for advert in db.session.scalars(select(Advert).where(Advert.item_id.is_not(None))):
        by_status.setdefault(advert.status, set()).add(advert.item_id)
    closed_item = db.session.scalars(
        select(PreparationItem.id).where(
            PreparationItem.id.not_in(set().union(*by_status.values()))
        )
    ).first()
    make_advert(group, status="closed", item_id=closed_item)
    activate(group.instance_id)
    every = [i for ids in by_status.values() for i in ids] + [closed_item, 10**9]
    expected = by_status["published"] | by_status["allocated"] | {closed_item}
    assert active_advert_ids(every) == expected
    assert not active_advert_ids(list(by_status["draft"] | by_status["sold"]))
    assert active_advert_ids([]) == set()
    activate(group_named("Fjordauto AS").instance_id)  # another instance sees none of them
    assert active_advert_ids(every) == set()


def test_publishing_without_partners_says_nobody_got_a_link(client):
    group, user = outsider("Ensam Säljare AS", seller=True)
    token = sign_in_english(client, user)
    response = client.post("/market/advert/add", data=form_values(token))
    assert response.status_code == 302
    advert = db.session.scalars(
        select(Advert)
        .where(Advert.seller_group_id == group.id)
        .execution_options(all_instances=True)
    ).one()
    assert (advert.status, advert.currency) == ("published", "NOK")
    text = page_text(client.get(response.location))
    assert "No partner buyer has users to send bid links to yet." in text


def test_an_ended_advert_offers_no_bid_button(as_demo):
    ended = make_advert(nordbil(), ends_at=utcnow() - timedelta(minutes=5))
    client, _ = as_demo("buyer")
    response = client.get(LIST)
    assert ended.id in row_ids(response)
    row = re.search(rf'data-advert-id="{ended.id}".*?</tr>', page_text(response), re.S).group(0)
    assert "Bidding has ended" in row and "data-bid-link" not in row
    assert len(hrefs(response, "data-bid-link")) == len(demo_adverts("published")) - 1
    detail = client.get(f"/market/adverts/{ended.id}")
    assert detail.status_code == 200 and not hrefs(detail, "data-bid-link")


def test_send_bid_links_says_who_gets_them_and_asks_first(as_demo):
    """Issue 37: "Send bid links" opens a page naming the people and their companies; nothing
    is sent until the seller confirms there."""
    client, _token = as_demo("seller")
    advert = demo_adverts("published")[0]
    before = db.session.scalar(select(func.count()).select_from(EmailMessage))
    response = client.get(f"/market/adverts/{advert.id}/send-bid-links")
    assert response.status_code == 200
    page = page_text(response)
    assert "2 people get a bid link by e-mail" in page
    assert "Ole Hansen" in page and "Maja Persson" in page
    assert "buyer@demo.test" in page and "malmo@demo.test" in page
    assert "Send 2 bid links" in page and "Cancel" in page
    assert db.session.scalar(select(func.count()).select_from(EmailMessage)) == before
