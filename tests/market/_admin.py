"""Fixtures for the market's own pages (dashboard, statistics, settings, invites, requests):
demo users signed in, a company with no market presence, and a query counter."""

import re
from html import unescape

from app.auth.models import User
from app.core.models import Instance
from app.core.tenancy import activate
from app.extensions import db
from app.market.models import Advert, InstanceGroup
from tests.helpers import sign_in
from tests.market import _common
from tests.market._common import demo_user as demo_user
from tests.market._common import group_named as group_named
from tests.preparation.manage_helpers import QueryCounter as QueryCounter


def make_user(email: str, instance_id: int, roles=("ROLE_USER",), modules=("market",)) -> User:
    """A signed-in-able user of one instance (flushed)."""
    user = User(
        email=email,
        password_hash="x",
        firstname="Test",
        lastname="User",
        roles=list(roles),
        modules=list(modules),
        all_divisions=True,
        home_instance_id=instance_id,
        active_instance_id=instance_id,
    )
    user.instances = [db.session.get(Instance, instance_id)]
    db.session.add(user)
    db.session.flush()
    return user


def make_group(name: str, *, buyer=True, seller=False, currency="SEK") -> InstanceGroup:
    """A company of its own instance on the market (flushed); leaves no instance active."""
    instance = Instance(company_name=name)
    db.session.add(instance)
    db.session.flush()
    activate(instance.id)
    group = InstanceGroup(
        name=name,
        buyer=buyer,
        seller=seller,
        currency=currency,
        country_code="SE",
        options={"market": {"enableVehicleRequest": True}},
    )
    db.session.add(group)
    db.session.flush()
    activate(None)
    return group


def sign_in_as(client, user: User):
    """Sign the client in as `user` → (client, csrf token)."""
    return client, sign_in(client, user)


def text_of(html: str) -> str:
    """The visible text of a page fragment: tags dropped, entities resolved, spaces folded."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def tile(html: str, label: str) -> str:
    """The number on the dashboard tile with this label."""
    pattern = (
        r'<span class="market-tile-value">([^<]*)</span>\s*'
        r'<span class="market-tile-label">' + re.escape(label) + "</span>"
    )
    match = re.search(pattern, unescape(html))
    assert match, f"no tile {label!r}"
    return match.group(1).replace("\u00a0", " ").replace("\u202f", " ")


def tile_detail(html: str, label: str) -> str:
    pattern = (
        r'<span class="market-tile-label">' + re.escape(label) + r"</span>"
        r'<span class="market-tile-detail">([^<]*)</span>'
    )
    match = re.search(pattern, unescape(html))
    assert match, f"no detail under {label!r}"
    return match.group(1).replace("\u00a0", " ").replace("\u202f", " ")


def field_error(html: str, field: str) -> str | None:
    match = re.search(rf'id="{field}-error"[^>]*>([^<]*)</p>', html)
    return unescape(match.group(1)) if match else None


def field_value(html: str, field: str) -> str | None:
    tag = re.search(rf'<(?:input|textarea)[^>]*\bid="{field}"[^>]*>', html)
    if tag is None:
        return None
    if tag.group(0).startswith("<textarea"):
        body = re.search(rf'<textarea[^>]*\bid="{field}"[^>]*>(.*?)</textarea>', html, re.S)
        return unescape(body.group(1)).strip()
    value = re.search(r'\bvalue="([^"]*)"', tag.group(0))
    return unescape(value.group(1)) if value else ""


def make_advert(group: InstanceGroup, status: str = "published", **values) -> Advert:
    """An advert of `group` in its own instance (flushed), published now unless a draft."""
    return _common.make_advert(group, status, prefix="ADM", **values)
