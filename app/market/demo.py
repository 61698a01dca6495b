"""Demo market: Nordbil sells in SEK; Fjordauto (NOK) and Malmö Bilcenter (SEK) bid on its
adverts; one invite to a new company is open."""

from datetime import timedelta
from decimal import Decimal

from sqlalchemy import select

from app.auth.models import User
from app.auth.services import hash_password
from app.core import addresses
from app.core.models import Instance, utcnow
from app.core.settings import GlobalSettingRow
from app.core.tenancy import activate
from app.demo import DEMO_PASSWORD, add_company, demo_link, seeder, swedish_and
from app.extensions import db
from app.market import bid_totals, bidder_mail, passport
from app.market.endings import tell_sellers
from app.market.filters import Criteria
from app.market.groups import add_partner
from app.market.links import ensure_link
from app.market.models import (
    Advert,
    AdvertBid,
    ExchangeRate,
    InstanceGroup,
    MarketInvite,
    MarketLink,
    MarketPartner,
    MarketWatch,
    VehicleRequest,
)
from app.market.rates import convert_back, rates_from
from app.market.watch import create_search, notify_new_advert
from app.preparation.models import PreparationItem

# A third company, a buyer only, so that bids arrive in two currencies (SEK and NOK).
MALMO = {
    "name": "Malmö Bilcenter AB",
    "country": ("SE", "Sverige", "km", "SEK", "sv-SE"),
    "regions": {
        "Skåne": ["Malmö Bilcenter Malmö", "Malmö Bilcenter Lund"],
        "Halland": ["Malmö Bilcenter Halmstad", "Malmö Bilcenter Varberg"],
    },
}
TERMS = (
    "1. Bids are binding for 48 hours after bidding closes.\n"
    "2. Vehicles are sold as inspected, with the condition report in the advert.\n"
    "3. Payment within 5 working days of allocation; collection within 10 days.\n"
    "4. Prices exclude VAT where the vehicle is VAT-qualifying."
)
# The adverts' descriptions, written by the Swedish seller, with the six translations they added
# (app.demo.AFTER_SWEDISH: nb-NO fi-FI da-DK en-GB de-DE nl-NL), issue 37.
SERVICED = "Service var 1 500:e mil, två hjulsatser, inga kända skador."
TOWBAR = "Dragkrok, Matrix LED, vinterhjul ingår. Fullständig Audi-servicehistorik."
DESCRIPTIONS = {
    SERVICED: (
        "Service hver 15 000 km, to hjulsett, ingen kjente skader.",
        "Huollettu 15 000 km:n välein, kaksi rengassarjaa, ei tunnettuja vaurioita.",
        "Serviceret hver 15.000 km, to hjulsæt, ingen kendte skader.",
        "Serviced at 15,000 km intervals, two sets of tyres, no known damage.",
        "Wartung alle 15.000 km, zwei Radsätze, keine bekannten Schäden.",
        "Onderhoud elke 15.000 km, twee sets wielen, geen bekende schade.",
    ),
    TOWBAR: (
        "Hengerfeste, Matrix LED, vinterhjul følger med. Full Audi-servicehistorikk.",
        "Vetokoukku, Matrix LED, talvipyörät mukana. Täydellinen Audi-huoltohistoria.",
        "Anhængertræk, Matrix LED, vinterhjul medfølger. Fuld Audi-servicehistorik.",
        "Towbar, Matrix LED, winter wheels included. Full Audi service history.",
        "Anhängerkupplung, Matrix-LED, Winterräder inklusive. Lückenloses Audi-Serviceheft.",
        "Trekhaak, Matrix LED, winterwielen inbegrepen. Volledige Audi-onderhoudshistorie.",
    ),
}
RATES = {"NOK": "1.0240", "DKK": "0.6480", "EUR": "0.0868"}
# (status, days until bidding ends, start price, step, bids as (bidder, amount in its currency))
# Every advert takes proxy bids (maxima) and closes softly (120 s); the third offers buy now.
BUY_NOW = {2: 125_000}
ADVERTS = [
    ("published", 3, 185_000, 1_000, [("malmo", 185_000), ("fjord", 191_500), ("malmo", 190_000)]),
    ("published", 5, 242_000, 2_000, [("fjord", 247_900)]),
    ("published", 2, 96_000, 1_000, []),
    ("allocated", -1, 310_000, 2_000, [("malmo", 310_000), ("fjord", 321_500)]),
    ("sold", -20, 128_000, 1_000, [("fjord", 131_100), ("malmo", 129_000)]),
    ("draft", 7, 415_000, 5_000, []),
]
# A hidden reserve on the second published advert (its highest bid stays under it: "reserve not
# met" on the bid page), and a typed-in advert whose bidding ended two hours ago under its
# reserve: provisionally sold to Fjordauto, the seller's decision open (counter, then the
# bidder accepts through its link: demo-links reserve_advert and reserve_bid).
RESERVES = {1: 260_000}
PROVISIONAL = {
    "regno": "KLM482", "brand": "Audi", "model": "A6 Avant 40 TDI quattro", "model_year": 2020,
    "mileage": 71_300, "fuel_type": "Diesel", "color": "Glacier white", "start_price": 150_000,
    "bid_step": 1_000, "reserve_price": 175_000,
}  # fmt: skip
PROVISIONAL_BIDS = [("malmo", 152_000), ("fjord", 164_000), ("malmo", 159_000)]


def _malmo_user(instance_id: int) -> User:
    user = User(
        email="malmo@demo.test",
        password_hash=hash_password(DEMO_PASSWORD),
        firstname="Maja",
        lastname="Persson",
        # Malmö's market administrator: she answers the company's invitations.
        roles=["ROLE_USER", "ROLE_CCMARKET_ADMIN"],
        modules=["market"],
        options={"language": "sv-SE"},
        all_divisions=True,
        home_instance_id=instance_id,
        active_instance_id=instance_id,
    )
    user.instances = [db.session.get(Instance, instance_id)]
    db.session.add(user)
    db.session.flush()
    return user


@seeder(25)
def seed_groups(ctx: dict) -> None:
    first, second = ctx["instances"]
    groups = {}
    for key, instance, buyer, seller, currency, country in (
        ("nordbil", first, False, True, "SEK", "SE"),
        ("fjord", second, True, False, "NOK", "NO"),
    ):
        activate(instance.id)
        group = InstanceGroup(
            name=instance.company_name, buyer=buyer, seller=seller, currency=currency,
            country_code=country, options={"market": {"enableVehicleRequest": True}},
        )  # fmt: skip
        db.session.add(group)
        db.session.flush()
        groups[key] = group
    groups["nordbil"].invite_terms = TERMS
    malmo, _divisions = add_company(MALMO)
    groups["malmo"] = InstanceGroup(
        name=malmo.company_name, buyer=True, seller=False, currency="SEK", country_code="SE",
        company_id="556677-8899", contact_name="Maja Persson", contact_email="malmo@demo.test",
        options={"market": {"enableVehicleRequest": True}},
    )  # fmt: skip
    db.session.add(groups["malmo"])
    db.session.flush()
    ctx["market_users"] = {"malmo": _malmo_user(malmo.id)}
    activate(None)
    ctx["market_groups"] = groups


@seeder(45)
def seed_market(ctx: dict) -> None:
    """Partners, rates, invites, adverts (from showroom vehicles), links and bids."""
    groups, users = ctx["market_groups"], ctx["users"]
    nordbil = groups["nordbil"]
    bidders = {"fjord": users["buyer@demo.test"], "malmo": ctx["market_users"]["malmo"]}
    seller = users["seller@demo.test"]
    now = utcnow().replace(second=0, microsecond=0)
    activate(nordbil.instance_id)
    for key in ("fjord", "malmo"):
        add_partner(nordbil.id, groups[key].id)
        partner = db.session.scalar(
            select(MarketPartner).where(MarketPartner.buyer_group_id == groups[key].id)
        )
        partner.created_at = now - timedelta(days=58)
        db.session.add(
            MarketInvite(
                seller_group_id=nordbil.id, company_name=groups[key].name,
                email=bidders[key].email, language="sv-SE", created_by_id=seller.id,
                created_at=now - timedelta(days=60), accepted_at=now - timedelta(days=58),
                accepted_user_id=bidders[key].id,
            )
        )  # fmt: skip
    db.session.add(
        MarketInvite(
            seller_group_id=nordbil.id, company_name="Vestkyst Bil AS", company_id="987654321",
            email="post@vestkystbil.test", language="en-GB", created_by_id=seller.id,
            created_at=now - timedelta(days=1),
        )
    )  # fmt: skip
    for currency, rate in RATES.items():
        db.session.add(ExchangeRate(currency="SEK", to_currency=currency, rate=Decimal(rate)))
    db.session.flush()
    rates = rates_from(nordbil.instance_id, "SEK")
    items = db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.module == "begcare", PreparationItem.state == 6)
        .order_by(PreparationItem.id)
        .limit(len(ADVERTS))
    ).all()
    for index, (status, days, start, step, bids) in enumerate(ADVERTS):
        item = items[index]
        advert = Advert(
            seller_group_id=nordbil.id, item_id=item.id, regno=item.regno, brand=item.brand,
            model=item.model, model_year=item.model_year, mileage=item.mileage,
            fuel_type=item.fuel_type, color=item.color, currency="SEK", start_price=start,
            bid_step=step, ends_at=now + timedelta(days=days, hours=4), status=status,
            created_by_id=seller.id, created_at=now - timedelta(days=abs(days) + 6),
            description=SERVICED, description_texts=swedish_and(SERVICED, DESCRIPTIONS[SERVICED]),
            published_at=None if status == "draft" else now - timedelta(days=abs(days) + 5),
            proxy_bidding=True, soft_close_seconds=120, buy_now_price=BUY_NOW.get(index),
        )  # fmt: skip
        # The car stands at its division's address; the first one at the central store.
        where = addresses.offered([item.division_id])
        advert.address_id = next(
            (a.id for a in where if (a.division_id is None) == (index == 0)), None
        )
        db.session.add(advert)
        db.session.flush()
        ensure_link(advert, seller.id, nordbil, "seller")
        best = None
        for minutes, (who, amount) in enumerate(bids):
            group, user = groups[who], bidders[who]
            link = ensure_link(advert, user.id, group, "bid")
            bid = AdvertBid(
                advert_id=advert.id, group_id=group.id, user_id=user.id, link_id=link.id,
                request_key=f"demo-{advert.id}-{minutes}", amount=amount,
                currency=group.currency, advert_amount=convert_back(amount, rates[group.currency]),
                rate=rates[group.currency],
                created_at=advert.published_at + timedelta(hours=5, minutes=37 * minutes),
            )  # fmt: skip
            db.session.add(bid)
            best = bid if best is None or bid.advert_amount > best.advert_amount else best
        if status != "draft":
            for who in ("fjord", "malmo"):
                ensure_link(advert, bidders[who].id, groups[who], "bid")
        advert.bid_count = len(bids)
        advert.highest_bid = best.advert_amount if best else None
        advert.highest_group_id = best.group_id if best else None
        if status in ("allocated", "sold") and best is not None:
            advert.allocated_group_id, advert.allocated_price = best.group_id, best.advert_amount
            advert.allocated_at = now - timedelta(days=abs(days) - 1 if days < -1 else 0, hours=2)
            advert.allocated_notes = "Collection from Solna, keys at reception."
        if status == "sold":
            advert.sold_at = advert.allocated_at + timedelta(days=3)
        advert.reserve_price = RESERVES.get(index)
    db.session.flush()
    _seed_provisional(nordbil, groups, bidders, seller, rates, now)
    bid_totals.recount(nordbil.instance_id)  # the demo's bids were not placed: counted here
    _seed_vehicle_requests(groups, bidders, now)
    activate(None)


def _seed_provisional(nordbil, groups, bidders, seller, rates, now) -> None:
    """The advert that ended under its reserve, with the mails its end sent (previewable)."""
    ended = now - timedelta(hours=2)
    advert = Advert(
        seller_group_id=nordbil.id, currency="SEK", ends_at=ended, status="provisional",
        created_by_id=seller.id, created_at=ended - timedelta(days=4),
        published_at=ended - timedelta(days=3),
        description=TOWBAR, description_texts=swedish_and(TOWBAR, DESCRIPTIONS[TOWBAR]),
        **PROVISIONAL,
    )  # fmt: skip
    db.session.add(advert)
    db.session.flush()
    ensure_link(advert, seller.id, nordbil, "seller")
    best, best_link = None, None
    for n, (who, amount) in enumerate(PROVISIONAL_BIDS):
        group, user = groups[who], bidders[who]
        link = ensure_link(advert, user.id, group, "bid")
        bid = AdvertBid(
            advert_id=advert.id, group_id=group.id, user_id=user.id, link_id=link.id,
            request_key=f"demo-{advert.id}-{n}", amount=amount, currency=group.currency,
            advert_amount=convert_back(amount, rates[group.currency]),
            created_at=advert.published_at + timedelta(hours=20 * n + 3),
        )  # fmt: skip
        db.session.add(bid)
        if best is None or bid.advert_amount > best.advert_amount:
            best, best_link = bid, link
    advert.bid_count, advert.highest_bid = len(PROVISIONAL_BIDS), best.advert_amount
    advert.provisional_group_id = best.group_id
    advert.decision_due_at = ended + timedelta(hours=nordbil.decision_hours or 48)
    db.session.flush()
    with bidder_mail.mail_links():
        tell_sellers(advert)
    bidder_mail.send("provisional", best_link, advert)


# (buyer, brand, model, years, max mileage, max price in the buyer's currency, notes)
VEHICLE_REQUESTS = [
    ("fjord", "Volvo", "XC60", (2019, 2022), 90_000, 380_000, "Hybrid preferred, tow bar."),
    ("fjord", "Tesla", "Model Y", (2021, 2024), 60_000, 420_000, None),
    ("malmo", "Volkswagen", "Golf", (2018, 2021), 120_000, 190_000, "Automatic gearbox."),
]


def _seed_vehicle_requests(groups: dict, bidders: dict, now) -> None:
    for who, brand, model, (first, last), mileage, price, notes in VEHICLE_REQUESTS:
        group = groups[who]
        activate(group.instance_id)  # the buyer's: each request is stamped when it is added
        db.session.add(
            VehicleRequest(
                instance_id=group.instance_id, group_id=group.id, brand=brand, model=model, model_year_from=first,
                model_year_to=last, max_mileage=mileage, max_price=price,
                currency=group.currency, notes=notes, created_by_id=bidders[who].id,
                created_at=now - timedelta(days=4),
            )
        )  # fmt: skip
    db.session.flush()


def _demo_advert(status: str = "published") -> Advert | None:
    return db.session.scalar(
        select(Advert)
        .where(Advert.status == status, Advert.bid_count > 0)
        .order_by(Advert.id)
        .execution_options(all_instances=True)
    )


def _link(kind: str, email: str, advert: Advert | None = None) -> tuple[MarketLink, Advert] | None:
    """The user's link of `kind` to `advert` (the first published advert with bids)."""
    advert = advert or _demo_advert()
    if advert is None:
        return None
    link = db.session.scalar(
        select(MarketLink)
        .join(User, User.id == MarketLink.user_id)
        .where(MarketLink.advert_id == advert.id, MarketLink.kind == kind, User.email == email)
        .execution_options(all_instances=True)
    )
    return (link, advert) if link else None


def _path(action: str, kind: str, email: str, advert: Advert | None = None) -> str | None:
    found = _link(kind, email, advert)
    if found is None:
        return None
    link, advert = found
    group = db.session.get(InstanceGroup, link.group_id)
    return f"/market-bid/{action}/{group.hash}/{advert.hash}/{link.hash}"


@demo_link("invite")
def invite_link() -> str | None:
    invite = db.session.scalar(
        select(MarketInvite)
        .where(MarketInvite.accepted_at.is_(None), MarketInvite.denied_at.is_(None))
        .order_by(MarketInvite.id)
        .execution_options(all_instances=True)
    )
    return f"/market-invite/{invite.hash}" if invite else None


@demo_link("bid")
def bid_link() -> str | None:
    return _path("bid", "bid", "buyer@demo.test")


@demo_link("bid_second_buyer")
def bid_second_buyer_link() -> str | None:
    """Malmö Bilcenter's bid link to the same advert as "bid" (Fjordauto's): two buyers."""
    return _path("bid", "bid", "malmo@demo.test")


@demo_link("allocate")
def allocate_link() -> str | None:
    return _path("allocate", "seller", "seller@demo.test")


@demo_link("change_status")
def change_status_link() -> str | None:
    return _path("change-status", "seller", "seller@demo.test")


@seeder(47)
def seed_watch(ctx: dict) -> None:
    """The demo buyer watches a published advert and keeps a saved search, which has already
    e-mailed about a matching advert (readable at its preview link)."""
    buyer, group = ctx["users"]["buyer@demo.test"], ctx["market_groups"]["fjord"]
    published = db.session.scalars(
        select(Advert)
        .where(Advert.status == "published")
        .order_by(Advert.id)
        .execution_options(all_instances=True)
    ).all()
    if not published:
        return
    activate(group.instance_id)
    db.session.add(MarketWatch(user_id=buyer.id, advert_id=published[0].id))
    newest = published[-1]
    criteria = Criteria(brand=newest.brand, max_price=500_000)
    create_search(buyer.id, f"{newest.brand} ≤ 500 000 NOK", criteria, notify=True)
    db.session.flush()
    activate(None)
    notify_new_advert(newest.id)


def _provisional_advert() -> Advert | None:
    return db.session.scalar(
        select(Advert)
        .where(Advert.status == "provisional", Advert.regno == PROVISIONAL["regno"])
        .order_by(Advert.id)
        .execution_options(all_instances=True)
    )


@demo_link("reserve_advert")
def reserve_advert_link() -> str | None:
    """The seller's page of the advert that ended under its reserve (accept, decline, counter)."""
    advert = _provisional_advert()
    return f"/market/adverts/{advert.id}" if advert else None


@demo_link("reserve_bid")
def reserve_bid_link() -> str | None:
    """Fjordauto's bid link to that advert, where it answers the seller's counteroffer."""
    advert = _provisional_advert()
    return _path("bid", "bid", "buyer@demo.test", advert) if advert else None


TYRES = "Däck"  # the demo's tyres field (app/preparation/demo_specification.py), named in Swedish


@seeder(93)  # after the vehicles' specification values (app/preparation/demo_specification.py)
def seed_passport(ctx: dict) -> None:
    """The demo bidders' advert carries a vehicle passport (issue 33): its vehicle's finished
    quick tests, the work done and its tyres, without costs (the seller did not tick them)."""
    advert = _demo_advert()
    if advert is None:
        return
    activate(advert.instance_id)
    vehicle = passport.vehicle_of(advert)
    tests = passport.finished_tests(advert, vehicle)
    tyres = db.session.scalar(
        select(GlobalSettingRow.id).where(
            GlobalSettingRow.kind == "property", GlobalSettingRow.name == TYRES
        )
    )
    filled = {prop.id for prop, _value in passport.specification_fields(advert, vehicle)}
    tyres = [tyres] if tyres in filled else []
    passport.save(advert, passport.Choices(tests=[t.id for t in tests], work=True, spec=tyres))
    activate(None)
