"""Helpers of the bid page tests: the demo's adverts and links, paths and a public client."""

from __future__ import annotations

import itertools
import re

from sqlalchemy import func, select

from app.auth.models import User
from app.extensions import db
from app.mail.models import EmailMessage
from app.market import bid_totals
from app.market.links import ensure_link
from app.market.models import Advert, InstanceGroup, MarketLink

# The demo's market people: a partner buyer (Fjordauto, NOK), another (Malmö, SEK), the seller.
BUYER, MALMO, SELLER = "buyer@demo.test", "malmo@demo.test", "seller@demo.test"

_addresses = itertools.count(1)


def new_address() -> str:
    """A client address of its own, so the public rate limit of one test never meets another's."""
    n = next(_addresses)
    return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"


def user(email: str) -> User:
    return db.session.scalar(select(User).where(User.email == email))


def group(name: str) -> InstanceGroup:
    return db.session.scalar(
        select(InstanceGroup)
        .where(InstanceGroup.name.like(f"{name}%"))
        .execution_options(all_instances=True)
    )


def advert(status: str = "published", bids: bool = True) -> Advert:
    """The demo's first advert in `status` (with or without bids)."""
    query = select(Advert).where(Advert.status == status).order_by(Advert.id)
    query = query.where(Advert.bid_count > 0 if bids else Advert.bid_count == 0)
    return db.session.scalar(query.execution_options(all_instances=True))


def link(ad: Advert, email: str, kind: str) -> MarketLink:
    """The user's link of `kind` to the advert (made if the demo has none)."""
    person = user(email)
    found = db.session.scalar(
        select(MarketLink)
        .where(
            MarketLink.advert_id == ad.id,
            MarketLink.user_id == person.id,
            MarketLink.kind == kind,
        )
        .execution_options(all_instances=True)
    )
    if found is not None:
        return found
    name = {"seller@demo.test": "Nordbil", "buyer@demo.test": "Fjord", "malmo@demo.test": "Malm"}
    made = ensure_link(ad, person.id, group(name[email]), kind)
    db.session.flush()
    return made


def parts(ad: Advert, ln: MarketLink) -> str:
    """groupHash/advertHash/userHash of a link."""
    grp = db.session.get(InstanceGroup, ln.group_id) or db.session.scalar(
        select(InstanceGroup)
        .where(InstanceGroup.id == ln.group_id)
        .execution_options(all_instances=True)
    )
    return f"{grp.hash}/{ad.hash}/{ln.hash}"


def page_path(action: str, ad: Advert, ln: MarketLink) -> str:
    return f"/market-bid/{action}/{parts(ad, ln)}"


def data_path(action: str, ad: Advert, ln: MarketLink) -> str:
    return f"/api/_public/market-bid/{action}/{parts(ad, ln)}"


def bid_path(ad: Advert, ln: MarketLink) -> str:
    return f"/api/_public/market-bid/{parts(ad, ln)}"


def currencies_path(ad: Advert, ln: MarketLink) -> str:
    return f"/api/_public/market-advert/currencies/{parts(ad, ln)}"


def token(client, path: str) -> str:
    """The CSRF token of a public page (what the page script sends as X-CSRFToken)."""
    html = client.get(path).get_data(as_text=True)
    match = re.search(r'<meta name="csrf-token" content="([^"]+)"', html)
    assert match, f"{path} carries no csrf-token meta"
    return match.group(1)


def send(client, method: str, path: str, body, csrf: str):
    return client.open(path, method=method, json=body, headers={"X-CSRFToken": csrf})


def photo_jpeg(width: int = 800, height: int = 600) -> bytes:
    """A small generated photo: a sky, a road and a car-coloured block."""
    from io import BytesIO

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), (176, 206, 232))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, height * 0.62, width, height), fill=(92, 99, 107))
    draw.rounded_rectangle(
        (width * 0.18, height * 0.38, width * 0.82, height * 0.66), radius=40, fill=(29, 78, 216)
    )
    draw.rounded_rectangle(
        (width * 0.3, height * 0.26, width * 0.68, height * 0.42), radius=30, fill=(37, 99, 235)
    )
    for x in (0.3, 0.7):
        draw.ellipse(
            (width * x - 55, height * 0.6, width * x + 55, height * 0.6 + 110), fill=(20, 20, 20)
        )
    out = BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def make_advert(*, bids=(("malmo", 185_000), ("fjord", 191_500)), status="published", image=False):
    """A new advert of the demo seller (Nordbil, SEK) with bids and everyone's links: for tests
    that change an advert without touching the demo's own. Returns the advert (flushed)."""
    from datetime import timedelta

    from app.core.models import utcnow
    from app.core.tenancy import activate
    from app.market.models import AdvertBid, AdvertImage
    from app.market.rates import convert_back, rates_from
    from app.preparation.files import store_file

    seller_group = group("Nordbil")
    activate(seller_group.instance_id)
    seller = user("seller@demo.test")
    template = advert("published")
    now = utcnow()
    ad = Advert(
        seller_group_id=seller_group.id, regno="TST" + str(now.microsecond % 1000).zfill(3),
        brand="Volvo", model="XC60 B5 AWD", model_year=2021, mileage=48_200,
        fuel_type="Petrol/mild hybrid", color="Denim blue", currency="SEK",
        start_price=185_000, bid_step=1_000, ends_at=now + timedelta(days=2, hours=5),
        status=status, published_at=now - timedelta(days=1), created_by_id=seller.id,
        description=template.description,
    )  # fmt: skip
    db.session.add(ad)
    db.session.flush()
    ensure_link(ad, seller.id, seller_group, "seller")
    rates = rates_from(seller_group.instance_id, "SEK")
    people = {"fjord": ("buyer@demo.test", "Fjord"), "malmo": ("malmo@demo.test", "Malm")}
    links = {}
    for key, (email, name) in people.items():
        links[key] = ensure_link(ad, user(email).id, group(name), "bid")
    best = None
    for n, (who, amount) in enumerate(bids):
        ln = links[who]
        bid = AdvertBid(
            advert_id=ad.id, group_id=ln.group_id, user_id=ln.user_id, link_id=ln.id,
            request_key=f"test-{ad.id}-{n}", amount=amount,
            currency=group(people[who][1]).currency,
            advert_amount=convert_back(amount, rates[group(people[who][1]).currency]),
            created_at=now - timedelta(hours=len(bids) - n),
        )  # fmt: skip
        db.session.add(bid)
        best = bid if best is None or bid.advert_amount > best.advert_amount else best
    ad.bid_count = len(bids)
    if bids:  # stored as rows, not placed: counted as the demo's are
        db.session.flush()
        bid_totals.recount(seller_group.instance_id)
    ad.highest_bid = best.advert_amount if best else None
    ad.highest_group_id = best.group_id if best else None
    if image:
        file = store_file(photo_jpeg(), "volvo.jpg", seller.id)
        db.session.flush()
        db.session.add(AdvertImage(advert_id=ad.id, file_object_id=file.id, position=0))
    db.session.flush()
    return ad


def last_mail_id() -> int:
    """The newest stored mail's id (0 for none): what came after it is new."""
    return db.session.scalar(select(func.max(EmailMessage.id))) or 0


def new_mails(before: int, kind: str | None = None) -> list[EmailMessage]:
    """The mails stored after `before`, of `kind` when given, oldest first."""
    query = select(EmailMessage).where(EmailMessage.id > before).order_by(EmailMessage.id)
    if kind:
        query = query.where(EmailMessage.kind == kind)
    return list(db.session.scalars(query))
