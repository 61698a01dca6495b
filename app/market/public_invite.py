"""The invitation: the public page `market-invite/{inviteHash}` where an invited company reads
the seller's terms and registers (spec 02 sections 2-9), its three public calls, and the
signed-in page `market/accept-invite/{inviteHash}` for a user who already has an account."""

from datetime import datetime

from flask import abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import refresh
from flask_login import current_user
from pydantic import Field

from app.auth.services import PASSWORD_MAX, find_user
from app.auth.session import start_session
from app.core.api import ApiError, Schema, api_call, parse_body
from app.core.i18n import LANGUAGE_COOKIE, LOCALES, to_locale
from app.core.messages import message
from app.core.pages import public_page
from app.core.ratelimit import check_public_rate
from app.extensions import db
from app.market import api_bp, bp, invite_answer
from app.market.filters import country_names
from app.market.invite_answer import (
    INVITE_FIELD,
    INVITE_FIELDS,
    InviteError,
    Registration,
    RegistrationInvalid,
    invite_group,
)
from app.market.invites import COUNTRY_DEFAULTS, DEFAULT_LANGUAGE, INVITE_LANGUAGES, find_invite
from app.market.models import COUNTRIES, CURRENCIES, MarketInvite

INVALID = "MODULES.CCMARKET.ALERTS.INVALID_INVITATION"
# Where each registration field is on the wire (the 422 answer's `keys` name these paths).
FIELD_PATHS = {field.name: field.path for field in INVITE_FIELDS}
# The message keys the form checks in the browser (every key of the field table); their texts
# go to the page script.
FORM_KEYS = tuple(
    sorted({k for f in INVITE_FIELDS for k in (f.required, f.refused, f.too_long) if k})
)


# --- schemas -----------------------------------------------------------------------------------


def text(name: str, alias: str | None = None):
    """A registration field in the accept payload: any text, whose length and form
    check_registration refuses with the field's key (its longest length documented here)."""
    field = INVITE_FIELD[name]
    extra = {"maxLength": field.max_length} if field.max_length else None
    return Field(None, alias=alias, json_schema_extra=extra)


class GroupIn(Schema):
    name: str | None = Field(None, max_length=200)
    company_id: str | None = text("company_id", "companyId")
    contact_name: str | None = text("contact_name", "contactName")
    contact_email: str | None = text("contact_email", "contactEmail")
    contact_phone: str | None = text("contact_phone", "contactPhone")
    invoice_reference: str | None = text("invoice_reference", "invoiceReference")
    invoice_email: str | None = text("invoice_email", "invoiceEmail")
    currency: str | None = text("currency")
    country_code: str | None = text("country_code", "countryCode")


class InstanceIn(Schema):
    company_name: str | None = text("company_name", "companyName")
    groups: list[GroupIn] = Field(default_factory=list, max_length=1)


class PlainPasswordIn(Schema):
    first: str | None = text("password")
    second: str | None = text("password_repeat")


class UserIn(Schema):
    email: str | None = text("email")
    username: str | None = Field(None, max_length=254)
    plain_password: PlainPasswordIn = Field(default_factory=PlainPasswordIn, alias="plainPassword")
    phone_number: str | None = text("phone_number", "phoneNumber")
    firstname: str | None = text("firstname")
    lastname: str | None = text("lastname")
    language: str | None = text("language")


class AcceptBody(Schema):
    """Spec 02 section 3 "Accept payload"; `instance` is ignored for an existing company."""

    # A field's value of another type than text (or holding a NUL) is refused with the key the
    # page shows for that field: a weak password is PASSWORD_PATTERN whatever it is.
    refused_keys = {field.path: field.refused for field in INVITE_FIELDS}

    instance: InstanceIn | None = None
    user: UserIn


class InvitedOut(Schema):
    company_name: str = Field(serialization_alias="companyName")
    company_id: str | None = Field(serialization_alias="companyId")
    country_code: str = Field(serialization_alias="countryCode")
    currency: str


class InviteUserOut(Schema):
    email: str


class InviteOut(Schema):
    accepted_at: datetime | None = Field(serialization_alias="acceptedAt")
    denied_at: datetime | None = Field(serialization_alias="deniedAt")
    user: InviteUserOut | None
    invited: InvitedOut | None
    company_name: str = Field(serialization_alias="companyName")
    company_id: str | None = Field(serialization_alias="companyId")
    user_email: str = Field(serialization_alias="userEmail")
    language: str
    seller_name: str = Field(serialization_alias="sellerName")
    terms: str
    # True when the public form cannot answer: the invited address has an account, or the
    # invited company is already on the platform (its administrator answers signed in).
    sign_in_to_accept: bool = Field(serialization_alias="signInToAccept")


class DoneOut(Schema):
    message: str
    redirect: str


# --- helpers -----------------------------------------------------------------------------------


def default_terms() -> str:
    return _(
        "By registering you agree to trade on the seller's market on these terms:\n"
        "1. Bids are binding. The seller may allocate a vehicle to the highest bidder.\n"
        "2. Vehicles are sold as described in the advert and its condition report.\n"
        "3. Payment and collection follow the seller's instructions after allocation."
    )


def terms_of(invite: MarketInvite) -> str:
    return (invite.seller_group.invite_terms or "").strip() or default_terms()


def invite_locale(invite: MarketInvite | None) -> None:
    """Speak the invite's language (page and calls alike) unless the visitor chose one (link,
    account or cookie)."""
    if invite is None or request.args.get("lang") or request.cookies.get(LANGUAGE_COOKIE):
        return
    if current_user.is_authenticated and (current_user.options or {}).get("language"):
        return
    g.locale = to_locale(invite.language) or DEFAULT_LANGUAGE
    refresh()


def rate_limited_page():
    """check_public_rate() for a page: the error page with 429 instead of a JSON answer."""
    try:
        check_public_rate()
    except ApiError as exc:
        page = render_template("shell/error.html", title=_("Please wait"), message=exc.message)
        return page, exc.status, exc.headers
    return None


def invite_or_404(invite_hash: str) -> MarketInvite:
    invite = find_invite(invite_hash)
    if invite is None:
        abort(404)
    return invite


def _api_error(exc: InviteError) -> ApiError:
    return ApiError(exc.status, exc.message, key=exc.key)


def _invalid(keys: dict[str, str]) -> ApiError:
    paths = {FIELD_PATHS[name]: key for name, key in keys.items()}
    errors = {
        FIELD_PATHS[name]: invite_answer.message_for(key, INVITE_FIELD[name].max_length)
        for name, key in keys.items()
    }
    return ApiError(422, next(iter(errors.values())), errors=errors, keys=paths)


def _registration(body: AcceptBody) -> Registration:
    instance = body.instance or InstanceIn()
    group = instance.groups[0] if instance.groups else GroupIn()
    user, password = body.user, body.user.plain_password
    return Registration(
        company_name=instance.company_name or "",
        company_id=group.company_id or "",
        contact_name=group.contact_name or "",
        contact_email=group.contact_email or "",
        contact_phone=group.contact_phone or "",
        invoice_reference=group.invoice_reference or "",
        invoice_email=group.invoice_email or "",
        currency=group.currency or "SEK",
        country_code=group.country_code or "SE",
        email=user.email or "",
        firstname=user.firstname or "",
        lastname=user.lastname or "",
        phone_number=user.phone_number or "",
        password=password.first or "",
        password_repeat=password.second or "",
        language=user.language or DEFAULT_LANGUAGE,
    )


def page_texts() -> dict:
    """Everything the page script says, translated here (spec 02 section 8 and the form)."""
    return {
        "messages": {key: message(key) for key in FORM_KEYS},
        "invalidInvitation": message(INVALID),
        "logInToAccept": message("LOG_IN_TO_ACCEPT_INVITATION"),
        "connectionError": _("The server could not be reached. Check your connection."),
        "goToStart": _("Go to the start page"),
        "saving": _("Registering…"),
        "declining": _("Declining…"),
        "termsOf": _("Terms of %(seller)s"),
        "invitationFrom": _("Invitation from %(seller)s"),
        "joinCompany": _("Join %(company)s"),
        "invitedBy": _("%(seller)s invites %(company)s to its vehicle market."),
        "fixFields": _("Fill in the marked fields to continue."),
        "close": _("Close"),
    }


# --- the public page and its calls -------------------------------------------------------------


@bp.get("/market-invite/<invite_hash>")
@public_page
def invite_page(invite_hash: str):
    """The invitation: terms first, then the registration form (filled by its page script)."""
    limited = rate_limited_page()
    if limited is not None:
        return limited
    invite = invite_or_404(invite_hash)
    invite_locale(invite)
    existing = invite_group(invite)
    if existing is not None and invite.is_open:
        # A company on the platform answers through its administrator, signed in.
        flash(invite_answer.existing_company_text(existing.name), "info")
        return redirect(url_for("market.accept_invite_page", invite_hash=invite.hash))
    countries = [(code, country_name(code)) for code in COUNTRIES]
    return render_template(
        "market/invite.html",
        invite_hash=invite.hash,
        page_script="market-invite.js",
        page_texts=page_texts(),
        countries=countries,
        currency_options=[(code, code) for code in CURRENCIES],
        country_currency={code: COUNTRY_DEFAULTS[code][1] for code in COUNTRIES},
        languages=[(code, LOCALES[code]) for code in INVITE_LANGUAGES],
        default_language=invite.language if invite.language in INVITE_LANGUAGES else None,
        password_max=PASSWORD_MAX,
        rules=[field.page_rule() for field in INVITE_FIELDS],
    )


def country_name(code: str) -> str:
    return country_names()[code]


@api_call(api_bp, "/_public/instance-invites/<invite_hash>", "GET", response=InviteOut, public=True)
def get_instance_invite(invite_hash: str):
    """The invite a public hash names: its state, company, e-mail, seller and terms."""
    try:
        check_public_rate()
    except ApiError as exc:
        flash(exc.message, "danger")  # the page goes to the root, where this shows
        exc.extra["flashed"] = True
        raise
    invite = find_invite(invite_hash)
    invite_locale(invite)
    if invite is None:
        text = _("The page or item could not be found.")
        flash(text, "danger")
        raise ApiError(404, text, flashed=True)
    existing = find_user(invite.email)
    group = invite_group(invite)
    # The page leaves for the root or the sign-in page; these alerts are shown there.
    if not invite.is_open:
        flash(message(INVALID), "danger")
    elif existing is not None and not current_user.is_authenticated:
        flash(message("LOG_IN_TO_ACCEPT_INVITATION"), "info")
    return InviteOut(
        accepted_at=invite.accepted_at,
        denied_at=invite.denied_at,
        user=InviteUserOut(email=existing.email) if existing is not None else None,
        invited=InvitedOut(
            company_name=group.name,
            company_id=group.company_id,
            country_code=group.country_code,
            currency=group.currency,
        )
        if group is not None
        else None,
        company_name=invite.company_name,
        company_id=invite.company_id,
        user_email=invite.email,
        language=invite.language if invite.language in INVITE_LANGUAGES else DEFAULT_LANGUAGE,
        seller_name=invite.seller_group.name,
        terms=terms_of(invite),
        sign_in_to_accept=existing is not None or group is not None,
    )


@api_call(
    api_bp,
    "/_public/instance-invites/<invite_hash>/accept-invite",
    "PUT",
    bodies=(AcceptBody,),
    response=DoneOut,
    public=True,
    errors=(409,),
)
def accept_instance_invite(invite_hash: str):
    """Register the invited company and its user, sign the user in, and go to the market (an
    unknown invitation is a 404 before its body is read)."""
    check_public_rate()
    invite = find_invite(invite_hash)
    if invite is None:
        raise ApiError(404, _("The page or item could not be found."))
    invite_locale(invite)
    body = parse_body(AcceptBody)
    try:
        user = invite_answer.register_from_invite(invite_hash, _registration(body))
        db.session.commit()
    except InviteError as exc:
        db.session.rollback()
        raise _api_error(exc) from None
    except RegistrationInvalid as exc:
        db.session.rollback()
        raise _invalid(exc.keys) from None
    except Exception:
        db.session.rollback()  # nothing of the company, its user or the partnership stays
        raise
    start_session(user)
    text = message("INVITE_ACCEPTED")
    flash(text, "success")
    return DoneOut(message=text, redirect=url_for("shell.module_home", kebab="market"))


@api_call(
    api_bp,
    "/_public/instance-invites/<invite_hash>/deny-invite",
    "PUT",
    response=DoneOut,
    public=True,
    errors=(409,),
)
def deny_instance_invite(invite_hash: str):
    """Decline the invitation (the terms were declined); the page goes to the root."""
    check_public_rate()
    invite_locale(find_invite(invite_hash))
    try:
        invite_answer.decline_invite(invite_hash)
        db.session.commit()
    except InviteError as exc:
        db.session.rollback()
        raise _api_error(exc) from None
    text = message("INVITE_DECLINED")
    flash(text, "success")
    return DoneOut(message=text, redirect=url_for("shell.root"))


# --- the signed-in page ------------------------------------------------------------------------


def _signed_in_invite(invite_hash: str):
    """The invite for the signed-in page, or the answer to give instead (403 for someone who
    may not answer it, the root with the invalid-invitation alert for an answered invite)."""
    invite = invite_or_404(invite_hash)
    refusal = invite_answer.may_answer(invite, current_user)
    if refusal is not None:
        page = render_template(
            "market/accept_invite.html",
            invite=None,
            wrong_user=True,
            refusal=invite_answer.refusal_text(refusal),
        )
        return None, (page, 403)
    if not invite.is_open:
        flash(message(INVALID), "danger")
        return None, redirect(url_for("shell.root"))
    return invite, None


@bp.get("/market/accept-invite/<invite_hash>")
def accept_invite_page(invite_hash: str):
    """A signed-in user answers an invitation for their company: the invited address for a new
    company, a user of the invited company for one on the platform. Only an administrator or
    market administrator may answer; others are told who can."""
    invite, answer = _signed_in_invite(invite_hash)
    if answer is not None:
        return answer
    allowed = invite_answer.can_accept(current_user)
    group = invite_group(invite)
    return render_template(
        "market/accept_invite.html",
        invite=invite,
        wrong_user=False,
        company_name=group.name if group is not None else None,
        seller_name=invite.seller_group.name,
        terms=terms_of(invite),
        needs_admin=None
        if allowed
        else invite_answer.needs_admin_text(current_user.active_instance_id),
    )


@bp.post("/market/accept-invite/<invite_hash>")
def accept_invite_answer(invite_hash: str):
    """Accept (answer=accept) or decline the invitation for the signed-in user's company."""
    invite, answer = _signed_in_invite(invite_hash)
    if answer is not None:
        return answer
    answer_given = request.form.get("answer")
    if answer_given not in ("accept", "decline"):
        abort(400)
    accept = answer_given == "accept"
    if not invite_answer.can_accept(current_user):
        abort(403)
    try:
        if accept:
            invite_answer.accept_as_user(invite_hash, current_user)
        else:
            invite_answer.decline_invite(invite_hash)
        db.session.commit()
    except InviteError as exc:
        db.session.rollback()
        flash(exc.message, "danger")
        return redirect(url_for("shell.root"))
    if accept:
        flash(message("INVITE_ACCEPTED"), "success")
        if "market" not in (current_user.modules or []):
            return redirect(url_for("shell.root"))
        return redirect(url_for("shell.module_home", kebab="market"))
    flash(message("INVITE_DECLINED"), "success")
    return redirect(url_for("shell.root"))
