"""Instances (dealer groups), countries, regions, divisions and groups (role sets)."""

import re

from flask import flash
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms.validators import Regexp

from app.admin.crud import Column, FormRefused, Screen, kept_while_referred
from app.admin.fields import choice, described, flag, role_sections, text
from app.admin.users import writer_reach
from app.auth import privileges as P
from app.auth.models import Group
from app.auth.viewer import Viewer
from app.core import roles as R
from app.core.i18n import LOCALES
from app.core.models import Country, Division, Instance, Region
from app.extensions import db
from app.preparation.models import PreparationItem


def slugify(name: str) -> str:
    table = str.maketrans({"å": "a", "ä": "a", "ö": "o", "ø": "o", "æ": "ae", "ü": "u"})
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower().translate(table)).strip("-")
    return slug[:90] or "x"


# --- instances -------------------------------------------------------------------------------


class InstanceForm(FlaskForm):
    company_name = text(_l("Company name"), 200)
    active = flag(_l("Active"), _l("Users of an inactive instance cannot work in it."))


def prepare_instance(form, v, row) -> None:
    if row is None and not form.is_submitted():
        form.active.data = True


def after_instance_save(row: Instance, created: bool, v: Viewer) -> None:
    if created:
        # The creator works in the new dealer group straight away (to set it up).
        user = current_user._get_current_object()
        user.join(row, like=user.membership)
        flash(
            _(
                "%(name)s is created. Choose “Work in it” to set up its divisions and users.",
                name=row.company_name,
            ),
            "info",
        )


def deactivate_instance(row: Instance, v) -> None:
    row.active = False


def _work_in_url(row: Instance) -> str | None:
    if row.id == current_user.active_instance_id or not row.active:
        return None
    return f"/admin/global/instances/{row.id}/work-in"


INSTANCES = Screen(
    path="global/instances",
    noun=_l("instance"),
    model=Instance,
    form=InstanceForm,
    columns=(
        Column(_l("Company name"), "company_name"),
        Column(_l("Active"), "active"),
        Column(_l("Id"), "id", "num"),
    ),
    intro=_l(
        "Each instance is one dealer group (a customer company) with its own divisions, users and vehicles."
    ),
    search=("company_name",),
    write=lambda v: v.has(R.global_read("INSTANCES")) and v.has(R.ROLE_ADMIN),
    order_by=(Instance.company_name,),
    label=lambda i: i.company_name,
    prepare=prepare_instance,
    after_save=after_instance_save,
    delete=deactivate_instance,
    delete_blocked=lambda i: None if i.active else _("This instance is already inactive."),
    delete_label=_l("Deactivate"),
    delete_question=_l("Nobody can work in an inactive instance; its data stays."),
    row_actions=((_l("Work in it"), _work_in_url),),
)


# --- countries, regions, divisions -----------------------------------------------------------


def _letters(n: int):
    return Regexp(rf"^[A-Za-z]{{{n}}}$", message=_l("Enter %(n)s letters.", n=n))


class CountryForm(FlaskForm):
    code = text(_l("Country code"), 2, hint=_l("Two letters, such as SE or NO."))
    name = text(_l("Name"))
    milage_unit = choice(_l("Distance unit"))
    currency = text(_l("Currency"), 3, hint=_l("Three letters, such as SEK."))
    locale = choice(_l("Language"))


CountryForm.code.kwargs["validators"].append(_letters(2))
CountryForm.currency.kwargs["validators"].append(_letters(3))


def prepare_country(form, v, row) -> None:
    form.milage_unit.choices = [("km", _("Kilometres")), ("mi", _("Miles"))]
    form.locale.choices = list(LOCALES.items())


def save_country(row: Country, form, v) -> None:
    form.populate_obj(row)
    row.code, row.currency = row.code.upper(), row.currency.upper()


COUNTRIES = Screen(
    path="general/countries",
    noun=_l("country"),
    model=Country,
    form=CountryForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Country code"), "code"),
        Column(_l("Currency"), "currency"),
        Column(_l("Language"), "locale"),
    ),
    intro=_l("The countries the dealer group works in; each holds regions."),
    search=("name", "code"),
    order_by=(Country.name,),
    prepare=prepare_country,
    save=save_country,
    delete_blocked=kept_while_referred(Region.country_id, _l("Delete its regions first.")),
)


class RegionForm(FlaskForm):
    name = text(_l("Name"))
    country_id = choice(_l("Country"), coerce=int)


def prepare_region(form, v, row) -> None:
    form.country_id.choices = [
        (c.id, c.name) for c in db.session.scalars(select(Country).order_by(Country.name))
    ]


def save_region(row: Region, form, v) -> None:
    form.populate_obj(row)
    row.slug = slugify(row.name)


REGIONS = Screen(
    path="general/regions",
    noun=_l("region"),
    model=Region,
    form=RegionForm,
    columns=(Column(_l("Name"), "name"), Column(_l("Country"), lambda r: r.country.name)),
    intro=_l("Regions group the divisions of one country."),
    search=("name",),
    order_by=(Region.name,),
    prepare=prepare_region,
    save=save_region,
    delete_blocked=kept_while_referred(
        Division.region_id, _l("Delete or move its divisions first.")
    ),
)


class DivisionForm(FlaskForm):
    name = text(_l("Name"))
    region_id = choice(_l("Region"), coerce=int)
    disabled = flag(_l("Disabled"), _l("A disabled division is hidden from the division selector."))


def prepare_division(form, v, row) -> None:
    form.region_id.choices = [
        (r.id, r.name) for r in db.session.scalars(select(Region).order_by(Region.name))
    ]


def save_division(row: Division, form, v) -> None:
    form.populate_obj(row)
    slug = base = slugify(row.name)
    n = 2
    while db.session.scalar(
        select(Division.id).where(Division.slug == slug, Division.id != (row.id or 0))
    ):
        slug, n = f"{base}-{n}", n + 1
    row.slug = slug


DIVISIONS = Screen(
    path="general/divisions",
    noun=_l("division"),
    model=Division,
    form=DivisionForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Region"), lambda d: d.region.name),
        Column(_l("Disabled"), "disabled"),
    ),
    intro=_l("Divisions are the dealership sites; vehicles and users belong to them."),
    search=("name",),
    order_by=(Division.name,),
    prepare=prepare_division,
    save=save_division,
    division=lambda d: d.id,
    delete_blocked=kept_while_referred(
        PreparationItem.division_id, _l("It has vehicles: disable it instead.")
    ),
)


# --- groups ----------------------------------------------------------------------------------


class GroupForm(FlaskForm):
    name = text(_l("Name"))
    roles = described(_l("Roles"))


def prepare_group(form, v, row) -> None:
    """A group counts as the roles it carries: only roles the writer may grant are offered."""
    form.roles.offer(role_sections(P.offer(writer_reach(v), v.instance.id).roles))


def save_group(row: Group, form, v) -> None:
    if not P.ceiling(writer_reach(v)).holds_roles(form.roles.data):
        raise FormRefused({"roles": _("You can only grant what you hold yourself.")})
    row.name = form.name.data
    row.roles = sorted(form.roles.data)


def may_change_group(v, row: Group) -> bool:
    return P.ceiling(writer_reach(v)).holds_roles(row.roles or [])


GROUPS = Screen(
    path="core/groups",
    noun=_l("group"),
    model=Group,
    form=GroupForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Roles"), lambda grp: len(grp.roles or []), "num"),
    ),
    intro=_l("A group is a named set of roles; a user in the group has all of them."),
    search=("name",),
    order_by=(Group.name,),
    prepare=prepare_group,
    save=save_group,
    write_row=may_change_group,
)
