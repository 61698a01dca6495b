"""Users: invite by e-mail with a set-password link, roles, groups, modules, divisions;
deactivate without losing history. The same screen serves the instance's users
(admin/core/users) and, for global user admins, every user (admin/global/users)."""

import secrets
from datetime import timedelta

from flask import current_app, flash, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import exists, func, select
from wtforms import EmailField
from wtforms.validators import Email, InputRequired, Length

from app.admin.crud import Column, FormRefused, Screen
from app.admin.fields import choice, flag, many, text
from app.auth.models import MODULES, Group, PasswordResetToken, User, user_divisions, user_instances
from app.auth.services import _token_hash, normalise_email
from app.core import roles as R
from app.core.i18n import DEFAULT_LOCALE, LOCALES
from app.core.messages import KEYS
from app.core.models import Division, Instance, utcnow
from app.core.modules import MODULE_NAMES
from app.extensions import db
from app.mail.services import send_mail
from app.shell.viewer import Viewer

INVITE_DAYS = 7
BASE_ROLES = (
    "ROLE_USER", R.ROLE_ADMIN, R.ROLE_MANAGER_ADMIN, R.IS_IMPERSONATOR, R.ROLE_STATISTICS,
    R.ROLE_USER_PA_STATISTICS, R.ROLE_CCMARKET_STATISTICS, R.ROLE_CCMARKET_ADMIN,
    R.ROLE_STATION_USER, R.ROLE_HIDE_MENU_ITEMS, R.ROLE_USER_DIVISION_ADMIN, R.ROLE_CHAT_BLOCKED,
    R.add_vehicle("begcare"), R.add_vehicle("newcare"),
)  # fmt: skip


def global_user_admin(v: Viewer) -> bool:
    return v.has(R.global_read("USER"))


def grantable_roles(v: Viewer) -> list[str]:
    """Roles the viewer may hand out: an administrator every instance role (and the global ones
    when a global user admin); a division admin only roles they hold themselves."""
    roles = [*BASE_ROLES, *R.ALL_TENANT_ROLES]
    if global_user_admin(v):
        roles += R.ALL_GLOBAL_ROLES
    if not v.has(R.ROLE_ADMIN):
        roles = [r for r in roles if r in v.roles]
    return roles


def _own_division_ids(v: Viewer) -> list[int]:
    return [d.id for d in v.visible_divisions]


def scope_instance_users(stmt, v: Viewer):
    """Users of the active instance; a division admin (without the user role) only those who
    share one of their divisions."""
    member = exists().where(
        user_instances.c.user_id == User.id,
        user_instances.c.instance_id == (v.instance.id if v.instance else None),
    )
    stmt = stmt.where(member)
    if not (v.has(R.ROLE_ADMIN) or v.has(R.tenant_read("USER"))):
        shares = exists().where(
            user_divisions.c.user_id == User.id,
            user_divisions.c.division_id.in_(_own_division_ids(v)),
        )
        stmt = stmt.where(shares)
    return stmt


class UserForm(FlaskForm):
    email = EmailField(
        _l("E-mail"),
        validators=[
            InputRequired(KEYS["FIELD_REQUIRED"]),
            Length(max=254, message=KEYS["FIELD_TOO_LONG"]),
            Email(KEYS["INVALID_EMAIL"]),
        ],
        render_kw={"maxlength": 254, "autocomplete": "off"},
    )
    firstname = text(_l("First name"))
    lastname = text(_l("Last name"))
    phone_number = text(_l("Phone number"), 40, required=False)
    language = choice(_l("Language"))
    modules = many(_l("Modules"))
    groups = many(_l("Groups"), coerce=int, hint=_l("Each group adds its set of roles."))
    roles = many(_l("Roles"))
    all_divisions = flag(_l("All divisions"), _l("Sees every division of the instance."))
    divisions = many(_l("Divisions"), coerce=int)
    is_global = flag(_l("Global user"), _l("Works across instances: no dashboard or lists."))
    active = flag(_l("Active"), _l("An inactive user cannot sign in; their history stays."))


def prepare_user(form: UserForm, v: Viewer, row: User | None) -> None:
    form.language.choices = [(tag, name) for tag, name in LOCALES.items()]
    form.modules.choices = [(m, str(MODULE_NAMES[m])) for m in MODULES]
    form.roles.choices = [(r, r) for r in grantable_roles(v)]
    groups = db.session.scalars(select(Group).order_by(Group.name)).all()
    form.groups.choices = [(grp.id, grp.name) for grp in groups]
    if v.has(R.ROLE_ADMIN) or v.has(R.tenant_read("USER")):
        divisions = db.session.scalars(select(Division).order_by(Division.name)).all()
        form.divisions.choices = [(d.id, d.name) for d in divisions]
    else:
        form.divisions.choices = [(d.id, d.name) for d in v.visible_divisions]
        del form.all_divisions
    if not global_user_admin(v):
        del form.is_global
    if row is None:
        if not form.is_submitted():
            form.active.data = True
            form.language.data = DEFAULT_LOCALE
    elif not form.is_submitted():
        form.language.data = (row.options or {}).get("language") or DEFAULT_LOCALE
        form.groups.data = [grp.id for grp in row.groups if grp.instance_id == v.instance.id]
        form.divisions.data = [d.id for d in row.divisions if d.instance_id == v.instance.id]


def save_user(row: User, form: UserForm, v: Viewer) -> None:
    email = normalise_email(form.email.data)
    other = db.session.scalar(
        select(User.id).where(func.lower(User.email) == email, User.id != (row.id or 0))
    )
    if other is not None:
        raise FormRefused({"email": _("A user with this e-mail address already exists.")})
    if row.id == v.user.id and not form.active.data:
        raise FormRefused({"active": _("You cannot deactivate your own account.")})
    row.email = email
    row.firstname, row.lastname = form.firstname.data, form.lastname.data
    row.phone_number = form.phone_number.data or None
    row.options = {**(row.options or {}), "language": form.language.data}
    row.modules = list(form.modules.data)
    offered = {value for value, _label in form.roles.choices}
    row.roles = sorted((set(row.roles or []) - offered) | set(form.roles.data))
    instance_id = v.instance.id
    groups = db.session.scalars(select(Group).where(Group.id.in_(form.groups.data))).all()
    row.groups = [grp for grp in (row.groups or []) if grp.instance_id != instance_id] + list(
        groups
    )
    allowed = {value for value, _label in form.divisions.choices}
    chosen = db.session.scalars(
        select(Division).where(Division.id.in_([i for i in form.divisions.data if i in allowed]))
    ).all()
    row.divisions = [
        d for d in (row.divisions or []) if d.instance_id != instance_id or d.id not in allowed
    ] + list(chosen)
    if form.all_divisions is not None and "all_divisions" in form:
        row.all_divisions = form.all_divisions.data
    if "is_global" in form:
        row.is_global = form.is_global.data
    row.active = form.active.data
    if row.id is None:
        instance = db.session.get(Instance, instance_id)
        row.instances = [instance]
        row.home_instance_id = row.active_instance_id = instance_id
        row.login_type = "default"


def invite(user: User) -> None:
    """Mail the new user a link to choose a password (the reset-token mechanism of app/auth)."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    db.session.add(
        PasswordResetToken(
            user=user,
            token_hash=_token_hash(token),
            created_at=now,
            expires_at=now + timedelta(days=INVITE_DAYS),
        )
    )
    instance = db.session.get(Instance, user.home_instance_id) if user.home_instance_id else None
    return send_mail(
        to=user.email,
        template="admin_invite",
        kind="user_invite",
        language=(user.options or {}).get("language") or DEFAULT_LOCALE,
        instance_id=user.home_instance_id,
        user_name=user.full_name,
        company=instance.company_name if instance else current_app.config["APP_TITLE"],
        reset_url=url_for("auth.reset_password", token=token, _external=True),
        days=INVITE_DAYS,
    )


def after_user_save(row: User, created: bool, v: Viewer) -> None:
    if created:
        invite(row)
        flash(
            _("An invitation to choose a password was sent to %(email)s.", email=row.email), "info"
        )


def deactivate(row: User, v: Viewer) -> None:
    row.active = False


def _self_block(v_getter):
    def blocked(row: User):
        from flask_login import current_user

        if row.id == current_user.id:
            return _("You cannot deactivate your own account.")
        if not row.active:
            return _("This user is already inactive.")
        return None

    return blocked


def user_snapshot(row: User) -> dict:
    return {
        "email": row.email,
        "firstname": row.firstname,
        "lastname": row.lastname,
        "phone_number": row.phone_number,
        "roles": sorted(row.roles or []),
        "modules": list(row.modules or []),
        "groups": sorted(grp.name for grp in row.groups),
        "divisions": sorted(d.name for d in row.divisions),
        "all_divisions": row.all_divisions,
        "is_global": row.is_global,
        "active": row.active,
        "language": (row.options or {}).get("language"),
    }


USER_COLUMNS = (
    Column(_l("E-mail"), "email"),
    Column(_l("Name"), lambda u: f"{u.firstname} {u.lastname}".strip()),
    Column(_l("Modules"), lambda u: [str(MODULE_NAMES.get(m, m)) for m in u.modules or []]),
    Column(_l("Active"), "active"),
)


def _write_users(v: Viewer) -> bool:
    return v.has(R.ROLE_ADMIN) or v.is_division_admin


def _act_as_url(path: str):
    def url(row: User) -> str | None:
        from flask_login import current_user

        if (
            row.id == current_user.id
            or not row.active
            or not current_user.has_role(R.IS_IMPERSONATOR)
        ):
            return None
        return f"/admin/{path}/{row.id}/act-as"

    return url


def _reinvite_url(path: str):
    def url(row: User) -> str | None:
        if row.password_hash or not row.active or row.login_type != "default":
            return None
        return f"/admin/{path}/{row.id}/invite"

    return url


def user_screen(path: str, scope, write, intro, columns=USER_COLUMNS) -> Screen:
    return Screen(
        path=path,
        model=User,
        form=UserForm,
        columns=columns,
        intro=intro,
        search=("email", "firstname", "lastname"),
        write=write,
        scope=scope,
        order_by=(User.email,),
        label=lambda u: u.email,
        prepare=prepare_user,
        save=save_user,
        after_save=after_user_save,
        delete=deactivate,
        delete_blocked=_self_block(None),
        delete_label=_l("Deactivate"),
        delete_question=_l(
            "The user can no longer sign in. Everything they did stays in the history, and you can activate them again."
        ),
        snapshot=user_snapshot,
        row_actions=(
            (_l("Send the invitation again"), _reinvite_url(path)),
            (_l("Act as"), _act_as_url(path)),
        ),
    )


def scope_global_users(stmt, v: Viewer):
    return stmt


CORE_USERS = user_screen(
    "core/users",
    scope_instance_users,
    _write_users,
    _l(
        "The people who work in this instance. A new user gets an e-mail with a link to choose a password."
    ),
)
GLOBAL_USERS = user_screen(
    "global/users",
    scope_global_users,
    lambda v: global_user_admin(v) and v.has(R.ROLE_ADMIN),
    _l("Every user of every instance. A user added here belongs to your active instance."),
    columns=(
        *USER_COLUMNS[:2],
        Column(_l("Instances"), lambda u: [i.company_name for i in u.instances]),
        USER_COLUMNS[3],
    ),
)
