"""Answering an invitation: the registration form's fields and checks, registering a new
company from the invite, accepting it as a signed-in user, declining it, and the texts that
say why an answer is refused. Accepting makes the company the seller's market partner."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import email_validator
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.auth.models import User
from app.auth.services import (
    active_members,
    find_user,
    hash_password,
    normalise_email,
    password_ok,
)
from app.core import audit
from app.core.locking import locked
from app.core.messages import message
from app.core.models import Country, Instance, utcnow
from app.core.roles import ROLE_ADMIN, ROLE_CCMARKET_ADMIN
from app.extensions import db
from app.market.groups import add_partner
from app.market.invites import (
    COUNTRY_DEFAULTS,
    DEFAULT_LANGUAGE,
    INVITE_LANGUAGES,
    create_market_company,
    find_invite,
    keep_instance,
)
from app.market.models import COUNTRIES, CURRENCIES, InstanceGroup, MarketInvite

# Whether a phone number holds a letter (any script): spec 02 section 5.
_LETTER = re.compile(r"[^\W\d_]")
EMAIL_TAKEN = "EMAIL_TAKEN"
EMAIL_NOT_INVITED = "EMAIL_NOT_INVITED"
# Who may accept an invitation for a whole company: its administrator or market administrator.
ACCEPT_ROLES = (ROLE_ADMIN, ROLE_CCMARKET_ADMIN)


class InviteError(Exception):
    """A refused answer to an invite; `message` is translated and shown as it is."""

    def __init__(self, status: int, key: str, message: str | None = None) -> None:
        super().__init__(key)
        self.status, self.key = status, key
        self.message = message if message is not None else message_for(key)


class RegistrationInvalid(Exception):
    """The registration form's refused fields: {attribute name: message key}."""

    def __init__(self, keys: dict[str, str]) -> None:
        super().__init__(keys)
        self.keys = keys


def message_for(key: str, max_length: int | None = None) -> str:
    """The translated text of a key this module uses (FIELD_TOO_LONG names the field's
    longest length)."""
    if key == "FIELD_TOO_LONG":
        return message(key, max=max_length or "")
    if key == EMAIL_TAKEN:
        return _("A user with this e-mail address already exists. Log in to accept the invitation.")
    if key == EMAIL_NOT_INVITED:
        return _("Register with the e-mail address the invitation was sent to.")
    return message(key)


@dataclass(frozen=True)
class InviteField:
    """One field of the registration (app/market/invite_fields.json): where it is on the wire
    and the message key of each refusal. The accept call and the invitation page's script
    (islands/market/invite/rules.js, given the same table) refuse a value with the same key."""

    name: str  # the Registration attribute
    path: str
    max_length: int | None = None
    required: str | None = None  # the key of an empty value (None: optional, or a choice)
    check: str | None = None  # email, phone, password, repeat, country, currency, language
    refused: str = "INVALID_VALUE"  # the key of a value the check (or the schema) refuses
    too_long: str = "FIELD_TOO_LONG"
    company: bool = False  # asked only of a new company

    def page_rule(self) -> dict:
        """The field's rule as the page's script reads it (the file's own keys)."""
        rule = {
            "path": self.path, "required": self.required, "check": self.check,
            "refused": self.refused, "tooLong": self.too_long,
            "maxLength": self.max_length, "company": self.company,
        }  # fmt: skip
        if self.check in CHOICES:
            rule["choices"] = list(CHOICES[self.check])
        return rule


def _load_fields() -> tuple[InviteField, ...]:
    rows = json.loads(Path(__file__).with_name("invite_fields.json").read_text("utf-8"))
    names = {"maxLength": "max_length", "tooLong": "too_long"}
    return tuple(InviteField(**{names.get(k, k): v for k, v in row.items()}) for row in rows)


CHOICES = {"country": COUNTRIES, "currency": CURRENCIES, "language": INVITE_LANGUAGES}
INVITE_FIELDS = _load_fields()
INVITE_FIELD = {field.name: field for field in INVITE_FIELDS}


@dataclass
class Registration:
    """What the invitation form sends: the company (ignored for an existing one) and the user."""

    company_name: str = ""
    company_id: str = ""
    contact_name: str = ""
    contact_email: str = ""
    contact_phone: str = ""
    invoice_reference: str = ""
    invoice_email: str = ""
    currency: str = "SEK"
    country_code: str = "SE"
    email: str = ""
    firstname: str = ""
    lastname: str = ""
    phone_number: str = ""
    password: str = ""
    password_repeat: str = ""
    language: str = DEFAULT_LANGUAGE


def email_ok(value: str) -> bool:
    try:
        email_validator.validate_email(value, check_deliverability=False)
    except email_validator.EmailNotValidError:
        return False
    return True


def phone_ok(value: str) -> bool:
    return not _LETTER.search(value or "")


def _field_ok(field: InviteField, value: str, reg: Registration) -> bool:
    """Whether a non-empty value passes its field's check (invite_fields.json `check`)."""
    if field.check == "email":
        return email_ok(value)
    if field.check == "phone":
        return phone_ok(value)
    if field.check == "password":
        return password_ok(value)
    if field.check == "repeat":  # compared only with a password given
        return not reg.password or value == reg.password
    if field.check in CHOICES:
        return value in CHOICES[field.check]
    return True


def check_registration(reg: Registration, *, new_instance: bool) -> dict[str, str]:
    """Spec 02 section 5: every refused field with its message key (empty when all is well),
    by the rules of invite_fields.json, which the invitation page applies the same way."""
    keys: dict[str, str] = {}
    for field in INVITE_FIELDS:
        if field.company and not new_instance:
            continue
        value = getattr(reg, field.name) or ""
        if not value.strip():
            if field.required:
                keys[field.name] = field.required
        elif field.max_length is not None and len(value) > field.max_length:
            keys[field.name] = field.too_long
        elif not _field_ok(field, value, reg):
            keys[field.name] = field.refused
    return keys


def open_invite(invite_hash: str) -> MarketInvite:
    """The invite a hash names, its row locked until the transaction ends; raises InviteError
    (404 unknown, 409 already accepted or declined)."""
    if find_invite(invite_hash) is None:
        raise InviteError(404, "NOT_FOUND", _("The page or item could not be found."))
    invite = locked(
        select(MarketInvite)
        .where(MarketInvite.hash == invite_hash)
        .execution_options(all_instances=True)
    ).scalar_one()
    db.session.refresh(invite)  # the identity map may hold what was read before the lock
    if not invite.is_open:
        raise InviteError(409, "MODULES.CCMARKET.ALERTS.INVALID_INVITATION")
    return invite


def invite_group(invite: MarketInvite) -> InstanceGroup | None:
    """The existing company's group an invite names (None invites a new company)."""
    if invite.invited_group_id is None:
        return None
    return db.session.scalar(
        select(InstanceGroup)
        .where(InstanceGroup.id == invite.invited_group_id)
        .execution_options(all_instances=True)
    )


def _close(invite: MarketInvite, user: User, group: InstanceGroup) -> None:
    invite.accepted_at = utcnow()
    invite.accepted_user_id = user.id
    invite.invited_group_id = group.id
    add_partner(invite.seller_group_id, group.id)
    audit.record(
        "market_invite_accepted", user=user, instance_id=group.instance_id, invite_id=invite.id
    )


@keep_instance
def register_from_invite(invite_hash: str, reg: Registration) -> User:
    """Accept an invite with the public form: the company (a new instance and its group, or the
    invited existing one, made a buyer), its user and the partnership with the seller. Only
    flushes: the caller commits all of it or rolls all of it back.

    Raises InviteError or RegistrationInvalid."""
    invite = open_invite(invite_hash)
    if find_user(invite.email) is not None:  # an existing user accepts signed in
        raise InviteError(409, "LOG_IN_TO_ACCEPT_INVITATION")
    existing = invite_group(invite)
    if existing is not None:
        # A company already on the platform answers through its own administrator, signed in:
        # the public form never makes a user inside an existing company.
        raise InviteError(409, "ADMIN_ACCEPTS", existing_company_text(existing.name))
    keys = check_registration(reg, new_instance=True)
    if "email" not in keys and normalise_email(reg.email) != invite.email:
        keys["email"] = EMAIL_NOT_INVITED
    if not keys and find_user(reg.email) is not None:
        keys = {"email": EMAIL_TAKEN}
    if keys:
        raise RegistrationInvalid(keys)
    instance, group = create_market_company(
        reg.company_name.strip(),
        reg.country_code,
        reg.currency,
        buyer=True,
        company_id=reg.company_id.strip(),
        contact_name=reg.contact_name.strip(),
        contact_email=normalise_email(reg.contact_email),
        contact_phone=reg.contact_phone.strip(),
        invoice_reference=reg.invoice_reference.strip(),
        invoice_email=normalise_email(reg.invoice_email),
    )
    user = User(
        email=normalise_email(reg.email),
        password_hash=hash_password(reg.password),
        firstname=reg.firstname.strip(),
        lastname=reg.lastname.strip(),
        phone_number=(reg.phone_number or "").strip() or None,
        roles=["ROLE_USER"],
        modules=["market"],
        options={"language": reg.language},
        all_divisions=True,
        home_instance_id=instance.id,
        active_instance_id=instance.id,
    )
    user.instances = [instance]
    db.session.add(user)
    try:
        db.session.flush()
    except IntegrityError:  # the address was taken after the check (a parallel registration)
        raise RegistrationInvalid({"email": EMAIL_TAKEN}) from None
    _close(invite, user, group)
    db.session.flush()
    return user


def decline_invite(invite_hash: str) -> MarketInvite:
    """Deny an open invite (the invitee declined the terms). Only flushes."""
    invite = open_invite(invite_hash)
    invite.denied_at = utcnow()
    audit.record("market_invite_declined", instance_id=invite.instance_id, invite_id=invite.id)
    db.session.flush()
    return invite


def may_answer(invite: MarketInvite, user: User) -> str | None:
    """Why `user` may not answer `invite` for a company (None when they may): an invite to a
    company on the platform is answered by a user of that company; an invite to a new company
    by the invited address. Only an administrator or market administrator may accept."""
    existing = invite_group(invite)
    if existing is not None:
        if user.active_instance_id != existing.instance_id:
            if any(i.id == existing.instance_id for i in user.instances):
                return "SWITCH_COMPANY"
            return "WRONG_USER"
    elif normalise_email(user.email) != invite.email:
        return "WRONG_USER"
    if user.active_instance_id is None:
        return "NO_COMPANY"
    return None


def can_accept(user: User) -> bool:
    """Whether the user may make their company a market partner (the company's decision)."""
    return any(user.has_role(role) for role in ACCEPT_ROLES)


def who_can_accept(instance_id: int) -> list[str]:
    """The names of the users of an instance who may accept an invitation for it."""
    users = db.session.scalars(
        active_members(instance_id).order_by(User.firstname, User.lastname, User.id)
    ).unique()
    names = []
    for person in users:
        if person.roles_in(instance_id) & set(ACCEPT_ROLES):
            names.append(person.full_name)
    return names


def accept_as_user(invite_hash: str, user: User) -> InstanceGroup:
    """Accept an invite for a signed-in user (see may_answer): the user's active instance trades
    with the seller as a buyer (its group is made when it has none). Only flushes."""
    invite = open_invite(invite_hash)
    refusal = may_answer(invite, user)
    if refusal is not None:
        raise InviteError(403 if refusal != "NO_COMPANY" else 409, refusal, refusal_text(refusal))
    if not can_accept(user):
        raise InviteError(403, "NEEDS_ADMIN", needs_admin_text(user.active_instance_id))
    instance_id = user.active_instance_id
    group = _first_of(InstanceGroup, instance_id)
    if group is not None and group.id == invite.seller_group_id:
        raise InviteError(409, "OWN_INVITE", _("Your company is the seller of this invitation."))
    if group is None:
        group = _buyer_group(instance_id)
    group.buyer = True
    _close(invite, user, group)
    db.session.flush()
    return group


def wrong_user_text() -> str:
    return _(
        "This invitation was sent to another e-mail address. "
        "Log in as the invited user to accept it."
    )


def existing_company_text(company: str) -> str:
    return _(
        "%(company)s is already on the platform. An administrator of %(company)s accepts the "
        "invitation after signing in.",
        company=company,
    )


def refusal_text(refusal: str) -> str:
    if refusal == "SWITCH_COMPANY":
        return _("Switch to the invited company to answer the invitation.")
    if refusal == "NO_COMPANY":
        return _("Choose the company that accepts the invitation.")
    return wrong_user_text()


def needs_admin_text(instance_id: int | None) -> str:
    names = who_can_accept(instance_id) if instance_id is not None else []
    if not names:
        return _(
            "Only a company administrator or market administrator can accept the invitation. "
            "Your company has none yet: ask the platform's support."
        )
    return _(
        "Only a company administrator or market administrator can accept the invitation. "
        "Ask one of them: %(names)s.",
        names=", ".join(names),
    )


def _first_of(model, instance_id: int):
    """The first row of `model` of the answering instance, read across instances."""
    return db.session.scalars(
        select(model)
        .where(model.instance_id == instance_id)
        .order_by(model.id)
        .execution_options(all_instances=True)
    ).first()


def _buyer_group(instance_id: int) -> InstanceGroup:
    """A buyer group for an instance that has none, in its country's currency."""
    instance = db.session.get(Instance, instance_id)
    country = _first_of(Country, instance_id)
    code = country.code if country is not None and country.code in COUNTRIES else "SE"
    currency = country.currency if country is not None else None
    group = InstanceGroup(
        instance_id=instance_id,
        name=instance.company_name,
        buyer=True,
        seller=False,
        currency=currency if currency in CURRENCIES else COUNTRY_DEFAULTS[code][1],
        country_code=code,
        options={"market": {"enableVehicleRequest": True}},
    )
    db.session.add(group)
    db.session.flush()
    return group
