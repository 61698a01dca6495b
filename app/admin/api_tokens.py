"""API users: the tokens machines call the API with (app/auth/tokens.py), on the shared screen.

A token is made with a name, the scopes it may use, an expiry date and the rights of its
service user, chosen from what the writer may grant (app.auth.privileges.offer, as for a person).
The secret is shown once, on the answer to the form that made it; the list shows its first
characters, its scopes, its expiry and its last use. Revoking refuses it from its next call.
"""

from datetime import UTC, date, datetime, time, timedelta

from flask import abort, render_template, request
from flask_babel import format_datetime, get_timezone
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import DateField
from wtforms.validators import InputRequired, ValidationError

from app.admin.crud import Column, FormRefused, Screen
from app.admin.fields import Described, described, flag, many, role_sections, text
from app.admin.users import writer_reach
from app.auth import privileges as P
from app.auth.tokens import ApiToken, give_rights, new_secret, service_reach, set_secret
from app.auth.viewer import Viewer
from app.core import roles as R
from app.core.messages import KEYS
from app.core.models import Division, Instance
from app.core.modules import MODULE_NAMES
from app.core.scopes import AREAS, READ, every_scope
from app.extensions import db

LONGEST = timedelta(days=366)
DEFAULT_LIFETIME = timedelta(days=90)


class ApiTokenForm(FlaskForm):
    name = text(_l("Name"), hint=_l("Who or what calls with this token, such as the website."))
    scopes = described(
        _l("Calls it may make"), hint=_l("Reading is GET; writing is every other call of the area.")
    )
    expires_on = DateField(
        _l("Expires on"),
        validators=[InputRequired(KEYS["FIELD_REQUIRED"])],
        description=_l("At most a year from today. Make a new token before this one expires."),
    )
    roles = described(_l("Roles"), hint=_l("The token's rights: at most your own."))
    modules = many(_l("Modules"))
    all_divisions = flag(_l("All divisions"), _l("Reaches every division of the instance."))
    divisions = many(_l("Divisions"), coerce=int)

    def validate_expires_on(self, field) -> None:
        if field.data is not None and not date.today() < field.data <= date.today() + LONGEST:
            raise ValidationError(_("Choose a day after today and at most a year from now."))


def scope_sections() -> list:
    """The scopes as one section per area: read and write."""
    sections: dict[str, list] = {}
    for scope, area, _name in every_scope():
        label = _("Read") if scope.endswith(f":{READ}") else _("Write")
        sections.setdefault(area, []).append(Described(scope, label, "", scope))
    return [(str(AREAS[area]), items) for area, items in sections.items()]


def _prepare(form: ApiTokenForm, v: Viewer, row: ApiToken | None) -> None:
    offer = P.offer(writer_reach(v), v.instance.id)
    form.scopes.offer(scope_sections())
    form.roles.offer(role_sections(offer.roles))
    form.modules.choices = [(m, str(MODULE_NAMES[m])) for m in offer.modules]
    form.divisions.choices = [(d.id, d.name) for d in offer.divisions]
    if not offer.all_divisions:
        del form.all_divisions
    if form.is_submitted():
        return
    if row is None:
        form.expires_on.data = date.today() + DEFAULT_LIFETIME
        form.modules.data = list(offer.modules)
        return
    user, membership = row.service_user, None
    if user is not None:
        membership = user.membership_in(row.instance_id)
    form.scopes.data = list(row.scopes or [])
    form.expires_on.data = _local_day(row.expires_at)
    form.roles.data = list(membership.roles) if membership else []
    form.modules.data = list(membership.modules) if membership else []
    if "all_divisions" in form:
        form.all_divisions.data = bool(membership and membership.all_divisions)
    if user is not None:
        form.divisions.data = [d.id for d in user.divisions if d.instance_id == row.instance_id]


def _save(row: ApiToken, form: ApiTokenForm, v: Viewer) -> None:
    """Store the token and its service user's rights; refuse rights beyond the writer's."""
    instance_id = v.instance.id
    writer = writer_reach(v)
    if row.id is not None and not _within_writer(v, row):
        abort(403)
    if "all_divisions" not in form and request.form.get("all_divisions"):  # posted, not offered
        raise FormRefused({"divisions": _("You can only grant what you hold yourself.")})
    divisions = db.session.scalars(
        select(Division).where(Division.id.in_(form.divisions.data or []))
    ).all()
    everywhere = bool(form.all_divisions.data) if "all_divisions" in form else False
    after = P.Reach(
        frozenset(r for r in form.roles.data if not R.is_platform_role(r)),
        frozenset(r for r in form.roles.data if R.is_platform_role(r)),
        frozenset(form.modules.data),
        None if everywhere else frozenset(d.id for d in divisions),
    )
    refused = P.refused_grant(writer, v.user, _Nobody(), after)
    if refused is not None:
        field = {"platform_roles": "roles"}.get(refused, refused)
        raise FormRefused({field: _("You can only grant what you hold yourself.")})
    row.name, row.scopes = form.name.data, sorted(form.scopes.data)
    # The end of the chosen day where the writer is (the list shows that day).
    end = datetime.combine(form.expires_on.data, time(23, 59, 59), tzinfo=get_timezone())
    row.expires_at = end.astimezone(UTC)
    if row.id is None:
        row.stamp(v.user.id)
        secret = new_secret()
        set_secret(row, secret)
        row._new_secret = secret  # shown once, on the answer to this request
    give_rights(row, db.session.get(Instance, instance_id), after, divisions)


class _Nobody:
    """The target of a new grant (refused_grant compares against the writer's ceiling)."""

    id = None


def _within_writer(v: Viewer, row: ApiToken) -> bool:
    """Whether the writer may change or revoke a token: its rights lie within their ceiling."""
    reach = service_reach(row)
    return reach is None or reach.within(P.ceiling(writer_reach(v)))


def _show_secret(row: ApiToken, created: bool):
    secret = getattr(row, "_new_secret", None)
    if not (created and secret):
        return None
    return render_template(
        "admin/api_token.html",
        screen_title=str(_("API users")),
        subpage=row.name,
        list_url=API_USERS.url,
        row=row,
        token=secret,
    )


def _revoke(row: ApiToken, v: Viewer) -> None:
    row.revoke()


def _when(moment: datetime | None, pattern: str = "y-MM-dd HH:mm") -> str:
    return format_datetime(moment, pattern) if moment else "–"


def _local_day(moment: datetime | None) -> date | None:
    return moment.astimezone(get_timezone()).date() if moment else None


def _state(row: ApiToken) -> str:
    if not row.active:
        return _("Revoked")
    return _("Expired") if row.expired else _("Active")


API_USERS = Screen(
    path="core/core-api-users",
    noun=_l("API user"),
    model=ApiToken,
    form=ApiTokenForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Token begins"), lambda a: f"{a.token_hint}…"),
        Column(_l("Calls it may make"), lambda a: ", ".join(a.scopes or [])),
        Column(_l("Expires"), lambda a: _when(a.expires_at, "y-MM-dd")),
        Column(_l("Last used"), lambda a: _when(a.last_used_at)),
        Column(_l("State"), _state),
    ),
    intro=_l(
        "Machine callers of the API. The token is shown once when the user is created and stored only as a hash; revoke it when it leaks."
    ),
    search=("name",),
    order_by=(ApiToken.name,),
    prepare=_prepare,
    save=_save,
    respond=_show_secret,
    delete=_revoke,
    write_row=_within_writer,
    delete_blocked=lambda a: None if a.active else _("This token is already revoked."),
    delete_label=_l("Revoke"),
    delete_question=_l(
        "Calls with this token are refused from now on. This cannot be undone: create a new API user for a new token."
    ),
)
