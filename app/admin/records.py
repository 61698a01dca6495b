"""Tags, holidays, addresses, the template engine and the logs: screens on the shared
mechanism with models of their own."""

import nh3
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from markupsafe import Markup
from sqlalchemy import or_, select
from wtforms import DateField, SelectField, StringField
from wtforms.validators import InputRequired, Optional, Regexp

from app.admin.crud import NAME, Column, FormRefused, Screen
from app.admin.fields import choice, flag, long_text, optional_int, text
from app.admin.mail_templates import (
    ALLOWED_TAGS,
    EMAILS,
    links_in,
    misplaced_links,
    render,
    with_needed_links,
)
from app.admin.models import Address, Tag
from app.admin.settings import division_name, kind_screen
from app.auth.models import User
from app.auth.viewer import Viewer
from app.core import roles as R
from app.core.audit import AuditLog
from app.core.division_settings import WHOLE_INSTANCE, instance_divisions, own_division_ids
from app.core.i18n import LOCALES
from app.core.localized import name_texts_field, search_names
from app.core.messages import KEYS
from app.core.models import Country
from app.core.settings import Holiday, SettingRow
from app.core.times import moment
from app.extensions import db

# --- tags, holidays, addresses --------------------------------------------------------------


class TagForm(FlaskForm):
    name = text(_l("Name"), 60)
    name_texts = name_texts_field(60)
    color = StringField(
        _l("Colour"),
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            Regexp(r"^#[0-9a-fA-F]{6}$", message=_l("Choose a colour.")),
        ],
        render_kw={"type": "color"},
        default="#4a6fa5",
    )


TAGS = Screen(
    path="general/tags",
    noun=_l("tag"),
    model=Tag,
    form=TagForm,
    columns=(NAME, Column(_l("Colour"), "color")),
    intro=_l("Tags are short labels users put on vehicles, such as “Campaign” or “Export”."),
    search_with=search_names(Tag),
    order_by=(Tag.name,),
)


class HolidayForm(FlaskForm):
    day = DateField(_l("Date"), validators=[InputRequired(KEYS["FIELD_REQUIRED"])])
    name = text(_l("Name"))
    country_id = SelectField(_l("Country"), coerce=optional_int, validators=[Optional()])


def _prepare_holiday(form, v, row) -> None:
    form.country_id.choices = [(None, _("Every country"))] + [
        (c.id, c.name) for c in db.session.scalars(select(Country).order_by(Country.name))
    ]


HOLIDAYS = Screen(
    path="general/holidays",
    noun=_l("holiday"),
    model=Holiday,
    form=HolidayForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Date"), "day"),
        Column(
            _l("Country"),
            lambda h: db.session.get(Country, h.country_id).name if h.country_id else None,
        ),
    ),
    intro=_l("Days off: they are not counted as stock days or in booking calendars."),
    search=("name",),
    order_by=(Holiday.day,),
    prepare=_prepare_holiday,
)


class AddressForm(FlaskForm):
    name = text(_l("Name"))
    street = text(_l("Street"), 200, required=False)
    postcode = text(_l("Postcode"), 20, required=False)
    city = text(_l("City"), required=False)
    division_id = SelectField(_l("Division"), coerce=optional_int, validators=[Optional()])


def _prepare_address(form, v, row) -> None:
    """The whole instance's (offered in every division) or one of the divisions the viewer
    sees: another division's is refused as an invalid choice."""
    own = own_division_ids(v)
    form.division_id.choices = [(None, str(WHOLE_INSTANCE))] + [
        (d.id, d.name) for d in instance_divisions() if d.id in own
    ]


ADDRESSES = Screen(
    path="general/address",
    noun=_l("address"),
    model=Address,
    form=AddressForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Street"), "street"),
        Column(_l("City"), "city"),
        Column(_l("Division"), division_name),
    ),
    intro=_l(
        "A division's addresses are where its cars stand: the seller chooses one on an advert "
        "(bidders see it) and on a delivery (the customer's invitation names it)."
    ),
    search=("name", "street", "city"),
    order_by=(Address.name,),
    prepare=_prepare_address,
)


# --- the template engine --------------------------------------------------------------------

TEMPLATES = tuple((name, label) for name, (label, _links) in EMAILS.items())


class TemplateForm(FlaskForm):
    template = choice(_l("E-mail"))
    language = choice(_l("Language"))
    subject = text(_l("Subject"), 200)
    body = long_text(
        _l("Text"),
        hint=_l(
            "Placeholders in braces are filled in when the e-mail is sent, such as {user_name}. A link placeholder such as {reset_url} stands on its own as plain text: the system makes it a link. Simple HTML is kept: paragraphs, bold, links and lists."
        ),
    )
    active = flag(
        _l("Active"), _l("An active template replaces the product's own text in this language.")
    )


def _prepare_template(form, v, row) -> None:
    form.template.choices = [(value, str(label)) for value, label in TEMPLATES]
    needed = _(
        "A link the e-mail needs that the text leaves out (a reset link, a bidder's own page and unsubscribe link) is added at its end."
    )
    form.body.description = f"{form.body.description} {needed}"
    form.language.choices = list(LOCALES.items())
    if row is None and not form.is_submitted():
        form.active.data = True


def _load_template(form, row) -> None:
    data = row.data or {}
    form.template.data, form.language.data = data.get("template"), data.get("language")
    form.subject.data, form.body.data, form.active.data = row.name, row.description, row.active


def _save_template(row: SettingRow, form, v) -> None:
    template, language = form.template.data, form.language.data
    other = db.session.scalar(
        select(SettingRow.id).where(
            SettingRow.kind == "email_template",
            SettingRow.id != (row.id or 0),
            SettingRow.data["template"].as_string() == template,
            SettingRow.data["language"].as_string() == language,
        )
    )
    if other:
        raise FormRefused(
            {"language": _("This e-mail already has a text in this language: edit that one.")}
        )
    body = nh3.clean(form.body.data or "", tags=ALLOWED_TAGS)
    refused = {}
    if links := links_in(form.subject.data):
        refused["subject"] = _(
            "A link cannot be part of the subject: %(names)s.", names=_braced(links)
        )
    if links := sorted({*misplaced_links(form.body.data or ""), *misplaced_links(body)}):
        refused["body"] = _(
            "Links are placed by the system: write %(names)s on its own, as plain text, not"
            " inside a link or an address. The e-mail shows it as a link to that page.",
            names=_braced(links),
        )
    if refused:
        raise FormRefused(refused)
    row.name, row.active = form.subject.data, form.active.data
    row.description = body
    row.data = {"template": template, "language": language}


def _braced(names: list[str]) -> str:
    return ", ".join(f"{{{name}}}" for name in names)


def preview(row: SettingRow) -> Markup:
    """The body as the recipient sees it, with example values in the placeholders."""
    examples = {"user_name": "Anna Berg", "reset_url": "https://example.test/reset-password/…",
                "company": "Nordic Cars AB", "app": "DealerCare",
                "page_url": "https://example.test/market/…", "unsubscribe_url": "https://example.test/unsubscribe/…"}  # fmt: skip
    html, text = render(row.description, examples)
    html, _text = with_needed_links(
        (row.data or {}).get("template", ""), row.description, examples, html, text
    )
    return Markup(html)  # noqa: S704 (cleaned by nh3)


TEMPLATE_ENGINE = kind_screen(
    "general/template-engine", "email_template", _l("template"),
    _l("The e-mails the product sends, with your own text per language. Open one to see a preview."),
    TemplateForm,
    (Column(_l("Subject"), "name"),
     Column(_l("E-mail"), lambda r: dict(TEMPLATES).get((r.data or {}).get("template"), "")),
     Column(_l("Language"), lambda r: LOCALES.get((r.data or {}).get("language"), "")),
     Column(_l("Active"), "active")),
    search=("name",),  # the subject: the body is HTML
    write=lambda v: v.has(R.ROLE_ADMIN) or v.has("ROLE_TENANT_TEMPLATE_ENGINE_ADMIN"),
    prepare=_prepare_template,
    load=_load_template,
    save=_save_template,
    preview=preview,
)  # fmt: skip


# --- the logs -------------------------------------------------------------------------------


class NoForm(FlaskForm):
    pass


def _scope_logs(stmt, v: Viewer):
    """The active instance's entries; only ROLE_ADMIN reads them all, anyone else who reaches
    the logs (a division administrator) only the entries of their divisions."""
    stmt = stmt.where(AuditLog.instance_id == (v.instance.id if v.instance else None))
    if not v.has(R.ROLE_ADMIN):
        stmt = stmt.where(AuditLog.division_id.in_(own_division_ids(v)))
    return stmt


def _search_logs(stmt, phrase: str):
    like = f"%{phrase.lower()}%"
    users = select(User.id).where(User.email.ilike(like))
    return stmt.where(
        or_(
            AuditLog.action.ilike(like),
            AuditLog.user_id.in_(users),
            AuditLog.acting_user_id.in_(users),
        )
    )


def _who(entry: AuditLog) -> str:
    user = db.session.get(User, entry.user_id) if entry.user_id else None
    acting = db.session.get(User, entry.acting_user_id) if entry.acting_user_id else None
    name = user.email if user else "–"
    return _("%(user)s acting as %(other)s", user=name, other=acting.email) if acting else name


def logs_screen(module: str) -> Screen:
    return Screen(
        path=f"{module}/logs",
        model=AuditLog,
        form=NoForm,
        columns=(
            Column(_l("When"), lambda e: moment(e.created_at, "seconds")),
            Column(_l("Who"), _who),
            Column(_l("What"), "action"),
            Column(
                _l("Details"),
                lambda e: ", ".join(
                    f"{k}: {v}"
                    for k, v in (e.details or {}).items()
                    if k not in ("before", "after")
                )[:200],
            ),
        ),
        intro=_l(
            "Every change in the instance: who did it (and on whose behalf when acting as someone), when, and what. Search by e-mail address or by what was done, such as “admin:general/divisions” or “impersonation”."
        ),
        search=("action",),
        search_with=_search_logs,
        write=lambda v: False,
        scope=_scope_logs,
        order_by=(AuditLog.created_at.desc(), AuditLog.id.desc()),
        label=lambda e: e.action,
        can_create=False,
        can_delete=False,
        history_link=False,
        read_only_note=False,
    )


RECORD_SCREENS = [
    TAGS,
    HOLIDAYS,
    ADDRESSES,
    TEMPLATE_ENGINE,
    logs_screen("begcare"),
    logs_screen("newcare"),
]
