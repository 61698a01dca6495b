"""Users: invite by e-mail with a set-password link, roles, groups, modules, divisions;
deactivate without losing history. The same screen serves the instance's users
(admin/core/users) and, for global user admins, every user (admin/global/users)."""

from datetime import timedelta

from flask import abort, current_app, flash, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import exists, func, select
from sqlalchemy.orm import selectinload

from app.admin.crud import Column, FormRefused, Screen
from app.admin.fields import (
    Described,
    PresetField,
    choice,
    described,
    flag,
    many,
    role_sections,
    text,
)
from app.admin.role_catalogue import PRESETS, Preset, name_of
from app.auth import privileges as P
from app.auth.forms import email_field
from app.auth.impersonation import may_act_as
from app.auth.landing import with_station_landing
from app.auth.models import (
    MODULES,
    Group,
    Membership,
    User,
    user_divisions,
    user_instances,
)
from app.auth.services import mail_user, new_reset_token, normalise_email
from app.auth.viewer import Viewer, viewer
from app.core import roles as R
from app.core.i18n import DEFAULT_LOCALE, LOCALES
from app.core.models import Division, Instance, utcnow
from app.core.modules import MODULE_NAMES
from app.extensions import db

INVITE_DAYS = 7


def global_user_admin(v: Viewer) -> bool:
    return v.has(R.global_read("USER"))


def writer_reach(v: Viewer) -> P.Reach:
    """The signed-in writer's reach in the active instance (while acting: both people's)."""
    instance_id = v.instance.id if v.instance else None
    acting = P.acting_reach(v.user, v.impersonator, instance_id)
    return acting if acting is not None else P.reach_of(v.user, instance_id)


def with_reach(stmt):
    """Load what each listed person's reach is read from (app.auth.privileges, per row: edit,
    deactivate and act-as links) with the page, not with a query per row."""
    return stmt.options(
        selectinload(User.memberships).selectinload(Membership.instance),
        selectinload(User.groups),
        selectinload(User.divisions),
    )


def scope_instance_users(stmt, v: Viewer):
    """Users of the active instance; a division admin (without the user role) only those who
    share one of their divisions."""
    member = exists().where(
        user_instances.c.user_id == User.id,
        user_instances.c.instance_id == (v.instance.id if v.instance else None),
    )
    stmt = stmt.where(member, User.login_type != "api")  # API tokens: on their own screen
    if not (v.has(R.ROLE_ADMIN) or v.has(R.tenant_read("USER"))):
        shares = exists().where(
            user_divisions.c.user_id == User.id,
            user_divisions.c.division_id.in_([d.id for d in v.visible_divisions]),
        )
        stmt = stmt.where(shares)
    return with_reach(stmt)


class UserForm(FlaskForm):
    email = email_field("off")
    firstname = text(_l("First name"))
    lastname = text(_l("Last name"))
    phone_number = text(_l("Phone number"), 40, required=False)
    language = choice(_l("Language"))
    preset = PresetField(
        _l("Start from a preset"),
        description=_l("Fills the modules, roles and divisions below; adjust them before saving."),
        validate_choice=False,
    )
    modules = many(_l("Modules"))
    groups = described(_l("Groups"), coerce=int, hint=_l("Each group adds its set of roles."))
    roles = described(_l("Roles"))
    all_divisions = flag(_l("All divisions"), _l("Sees every division of the instance."))
    divisions = many(_l("Divisions"), coerce=int)
    is_global = flag(_l("Global user"), _l("Works across instances: no dashboard or lists."))
    active = flag(_l("Active"), _l("An inactive user cannot sign in; their history stays."))


IDENTITY_NOTE = _l(
    "This person's e-mail address and sign-in are kept by their own company's administrator."
)


def prepare_user(form: UserForm, v: Viewer, row: User | None) -> None:
    """Offer only what the writer may grant (app.auth.privileges); a person beyond the writer's
    reach is not editable at all, and identity only by those who keep it."""
    writer = writer_reach(v)
    instance_id = v.instance.id
    offer = P.offer(writer, instance_id)
    form.language.choices = [(tag, name) for tag, name in LOCALES.items()]
    form.modules.choices = [(m, str(MODULE_NAMES[m])) for m in offer.modules]
    form.roles.offer(role_sections((*offer.roles, *offer.platform)))
    form.groups.offer([("", [group_choice(grp) for grp in offer.groups])])
    presets = [p for p in PRESETS if p.within(offer.roles, offer.modules, offer.all_divisions)]
    form.preset.choices = [("", _("None")), *((p.key, str(p.title)) for p in presets)]
    form.preset.values = {p.key: preset_values(p, offer) for p in presets}
    form.divisions.choices = [(d.id, d.name) for d in offer.divisions]
    if not offer.all_divisions:
        del form.all_divisions
    if not P.ceiling(writer).is_global:
        del form.is_global
    if row is not None and not P.may_edit_identity(writer, v.user, row, instance_id):
        form.email.render_kw = {**form.email.render_kw, "readonly": True}
        form.email.description = IDENTITY_NOTE
        del form.active
    if row is None:
        if not form.is_submitted():
            form.active.data = True
            form.language.data = DEFAULT_LOCALE
    elif not form.is_submitted():
        membership = row.membership_in(instance_id)
        form.language.data = (row.options or {}).get("language") or DEFAULT_LOCALE
        form.roles.data = sorted({*(membership.roles if membership else []), *row.platform_roles})
        form.modules.data = list(membership.modules) if membership else []
        if "all_divisions" in form:
            form.all_divisions.data = bool(membership and membership.all_divisions)
        form.groups.data = [grp.id for grp in row.groups if grp.instance_id == instance_id]
        form.divisions.data = [d.id for d in row.divisions if d.instance_id == instance_id]
    if request.form.get("redraw") == "preset" and form.preset.data in form.preset.values:
        apply_preset(form, form.preset.values[form.preset.data])


def group_choice(grp: Group) -> Described:
    """A group by its name, with the readable names of the roles it carries."""
    return Described(grp.id, grp.name, ", ".join(name_of(r) for r in grp.roles or []))


def preset_values(preset: Preset, offer: P.Offer) -> dict:
    """What a preset fills in the form of a writer with this offer (every part of it offered):
    its modules and roles, every division when it asks for them, and a writer's only division."""
    return {
        "modules": list(preset.modules),
        "roles": list(preset.roles),
        "all_divisions": preset.all_divisions and offer.all_divisions,
        "divisions": [offer.divisions[0].id] if len(offer.divisions) == 1 else None,
    }


def apply_preset(form: UserForm, values: dict) -> None:
    """Fill the form from a preset (islands/lib/role-form.js does the same in the browser)."""
    form.modules.data = list(values["modules"])
    form.roles.data = list(values["roles"])
    if "all_divisions" in form:
        form.all_divisions.data = values["all_divisions"]
    if values["divisions"] is not None:
        form.divisions.data = list(values["divisions"])


def save_user(row: User, form: UserForm, v: Viewer) -> None:
    """Store the form on the person's membership of the active instance; refuse a grant beyond
    the writer's ceiling (whatever was posted) and leave everything else as it was."""
    writer = writer_reach(v)
    instance_id = v.instance.id
    if row.id is not None and not P.may_edit(writer, v.user, row, instance_id):
        abort(403)
    withheld = [n for n in ("all_divisions", "is_global", "active") if n not in form]
    if any(request.form.get(name) for name in withheld):  # posted, though not offered
        raise FormRefused(_("You can only grant what you hold yourself."))
    identity = P.may_edit_identity(writer, v.user, row, instance_id)
    email = normalise_email(form.email.data) if identity else row.email
    other = db.session.scalar(
        select(User.id).where(func.lower(User.email) == email, User.id != (row.id or 0))
    )
    if other is not None:
        raise FormRefused({"email": _("A user with this e-mail address already exists.")})
    active = form.active.data if "active" in form else row.active
    if row.id == v.user.id and not active:
        raise FormRefused({"active": _("You cannot deactivate your own account.")})
    groups = db.session.scalars(
        select(Group).where(Group.id.in_(form.groups.data), Group.instance_id == instance_id)
    ).all()
    chosen_divisions = db.session.scalars(
        select(Division).where(
            Division.id.in_(form.divisions.data), Division.instance_id == instance_id
        )
    ).all()
    chosen_roles = set(form.roles.data)
    everywhere = form.all_divisions.data if "all_divisions" in form else None
    membership = row.membership_in(instance_id)
    if everywhere is None:  # not offered: as it was
        everywhere = bool(membership and membership.all_divisions)
    is_global = form.is_global.data if "is_global" in form else row.is_global
    roles = {r for r in chosen_roles if not R.is_platform_role(r)}
    for grp in groups:
        roles.update(grp.roles or [])
    after = P.Reach(
        frozenset(roles),
        frozenset(r for r in chosen_roles if R.is_platform_role(r)),
        frozenset(form.modules.data),
        None if everywhere or is_global else frozenset(d.id for d in chosen_divisions),
        bool(is_global),
    )
    refused = P.refused_grant(writer, v.user, row, after)
    if refused is not None:
        field = {"platform_roles": "roles"}.get(refused, refused)
        raise FormRefused({field: _("You can only grant what you hold yourself.")})

    was_station = R.ROLE_STATION_USER in {
        *(membership.roles if membership else []),
        *(r for grp in row.groups or [] if grp.instance_id == instance_id for r in grp.roles or []),
    }
    old_email = row.email
    row.email = email
    row.firstname, row.lastname = form.firstname.data, form.lastname.data
    row.phone_number = form.phone_number.data or None
    row.options = {**(row.options or {}), "language": form.language.data}
    if R.ROLE_STATION_USER in after.roles and not was_station:
        row.options = with_station_landing(row.options)  # their day starts at their station
    row.active = active
    row.is_global = bool(is_global)
    row.platform_roles = sorted(after.platform)
    if row.id is None:
        instance = db.session.get(Instance, instance_id)
        row.home_instance_id = row.active_instance_id = instance_id
        row.login_type = "default"
    else:
        instance = v.instance
    membership = row.join(instance)
    offered = {value for value, _label in form.roles.choices}
    kept = set(membership.roles or []) - offered  # roles this screen does not offer stay
    membership.roles = sorted(kept | {r for r in chosen_roles if not R.is_platform_role(r)})
    membership.modules = [m for m in MODULES if m in after.modules]
    membership.all_divisions = bool(everywhere)
    row.groups = [grp for grp in row.groups or [] if grp.instance_id != instance_id] + list(groups)
    row.divisions = [d for d in row.divisions or [] if d.instance_id != instance_id] + list(
        chosen_divisions
    )
    row.modified_at = utcnow()  # the menus' caches are keyed by it
    if row.id is not None and old_email != email:
        tell_old_address(row, old_email, v)


def tell_old_address(user: User, old_email: str, v: Viewer) -> None:
    """Mail the old address that the account's e-mail address changed, and by whom."""
    home = db.session.get(Instance, user.home_instance_id) if user.home_instance_id else None
    mail_user(
        user,
        "account_email_changed",
        to=old_email,
        instance_id=user.home_instance_id,
        company=home.company_name if home else current_app.config["APP_TITLE"],
        old_email=old_email,
        new_email=user.email,
        changed_by=v.user.full_name,
    )


def invite(user: User) -> None:
    """Mail the new user a link to choose a password (the reset-token mechanism of app/auth)."""
    token = new_reset_token(user, timedelta(days=INVITE_DAYS))
    instance = db.session.get(Instance, user.home_instance_id) if user.home_instance_id else None
    return mail_user(
        user,
        "admin_invite",
        kind="user_invite",
        instance_id=user.home_instance_id,
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


def may_change_user(v: Viewer, row: User) -> bool:
    return P.may_edit(writer_reach(v), v.user, row, v.instance.id if v.instance else None)


def may_keep_identity(row: User, v: Viewer) -> bool:
    """Whether the viewer keeps this person's sign-in (e-mail, password, active flag)."""
    instance_id = v.instance.id if v.instance else None
    writer = writer_reach(v)
    return P.may_edit(writer, v.user, row, instance_id) and P.may_edit_identity(
        writer, v.user, row, instance_id
    )


def deactivation_blocked(row: User) -> str | None:
    v = viewer()
    if row.id == v.user.id:
        return _("You cannot deactivate your own account.")
    if not row.active:
        return _("This user is already inactive.")
    if not may_keep_identity(row, v):
        return str(IDENTITY_NOTE)
    return None


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
        v = viewer()
        if v.impersonator is not None or not may_act_as(v.user, row):
            return None
        return f"/admin/{path}/{row.id}/act-as"

    return url


def _reinvite_url(path: str):
    def url(row: User) -> str | None:
        if row.password_hash or not row.active or row.login_type != "default":
            return None
        if not may_keep_identity(row, viewer()):
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
        label=lambda u: u.full_name or u.email,
        noun=_l("user"),
        prepare=prepare_user,
        save=save_user,
        after_save=after_user_save,
        delete=deactivate,
        delete_blocked=deactivation_blocked,
        write_row=may_change_user,
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
    return with_reach(stmt)


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
