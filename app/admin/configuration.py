"""admin/general/configuration: the instance's flags and module options, in one place.

They are stored where the product reads them (Instance.options, read through
Instance.configuration and Instance.module_option): one source, and only flags something reads
(docs/decisions.md, "Configuration flags act"). enable_my_events: the user menu and /my-events;
workingDays: every days figure (app.core.workdays); leads and soldFlow: the state's menu entry
and pages (app.preparation.states.state_enabled); measureToDelivered: stock days
(app.preparation.statistics.stock_days); showApprovalRequestsList and allowOwnApproval: the
purchase analysis. A module option is on by default unless its entry ends with its default. A
save drops the keys of these sections that no entry has (the retired pool and flow).
"""

from flask import flash, redirect, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField

from app.admin.crud import admin_only, guard, render_page
from app.core import audit
from app.core.models import Instance
from app.core.modules import MODULE_NAMES
from app.core.workdays import FLAG as WORKING_DAYS
from app.extensions import db
from app.preparation.statistics import MEASURE_TO_DELIVERED
from app.purchase.services import OWN_APPROVAL

PATH = "general/configuration"
URL = f"/admin/{PATH}"

FLAGS = (
    (
        "configuration",
        "enable_my_events",
        _l("My events"),
        _l("Users see My events in their menu."),
        False,
    ),
    (
        "configuration",
        WORKING_DAYS,
        _l("Count working days"),
        _l(
            "Stock days and days in a state count Monday to Friday without the holidays of the vehicle's country (admin: Holidays)."
        ),
        False,
    ),
)
MODULE_OPTIONS = {
    "begcare": (
        ("leads", _l("Leads"), _l("Vehicles can start as leads, before they come in.")),
        (MEASURE_TO_DELIVERED, _l("Measure to delivered"), _l("Stock days are counted until delivery, not until sale."), False),
        ("soldFlow", _l("Delivery flow"), _l("Sold vehicles go through a delivery flow before they are archived.")),
    ),
    "purchaseAnalysis": (
        ("showApprovalRequestsList", _l("Approval requests"), _l("The list of analyses waiting for approval is shown.")),
        (OWN_APPROVAL, _l("Allow approving one's own purchase analysis"), _l("Whoever made an analysis or asked approval for it may approve it too. Off: a second person approves."), False),
    ),
}  # fmt: skip
MODULE_OPTIONS["newcare"] = MODULE_OPTIONS["begcare"]


def field_name(section: str, key: str) -> str:
    return f"{section}__{key}"


def _form_class():
    fields = {}
    for section, key, label, hint, _default in FLAGS:
        fields[field_name(section, key)] = BooleanField(label, description=hint)
    for module, options in MODULE_OPTIONS.items():
        for key, label, hint, *_default in options:
            fields[field_name(module, key)] = BooleanField(label, description=hint)
    return type("ConfigurationForm", (FlaskForm,), fields)


ConfigurationForm = _form_class()


def sections():
    """(heading, [field names]) per section, in the order the page shows them."""
    yield _("General"), [field_name(s, k) for s, k, *_rest in FLAGS]
    for module, options in MODULE_OPTIONS.items():
        yield MODULE_NAMES[module], [field_name(module, key) for key, *_rest in options]


def current_values(instance: Instance) -> dict[str, bool]:
    values = {}
    for section, key, _label, _hint, default in FLAGS:
        values[field_name(section, key)] = instance.configuration(key, default)
    for module, options in MODULE_OPTIONS.items():
        for key, _label, _hint, *default in options:  # an option is on unless it says otherwise
            values[field_name(module, key)] = instance.module_option(module, key, *default)
    return values


def view():
    v = guard(PATH)
    instance = db.session.get(Instance, v.instance.id)
    form = (
        ConfigurationForm(data=current_values(instance))
        if request.method == "GET"
        else ConfigurationForm()
    )
    if request.method == "POST":
        guard(PATH, admin_only)
        if form.validate_on_submit():
            before = current_values(instance)
            options = {
                section: dict(values) for section, values in (instance.options or {}).items()
            }
            for section in {name.split("__", 1)[0] for name in before}:
                options[section] = {}  # only what the screen offers: nothing stored unread
            for name in before:
                section, key = name.split("__", 1)
                options[section][key] = bool(form[name].data)
            instance.options = options  # a new dict: the change is seen and the menus renewed
            after = current_values(instance)
            changed = sorted(k for k in after if after[k] != before[k])
            if changed:
                audit.record(
                    f"admin:{PATH}:{instance.id}:update",
                    screen=PATH,
                    record_id=instance.id,
                    name=instance.company_name,
                    before={k: before[k] for k in changed},
                    after={k: after[k] for k in changed},
                )
            db.session.commit()
            flash(_("Saved."), "success")
            return redirect(URL)
    return render_page(
        PATH, "configuration.html", form=form, sections=list(sections()), can_change=admin_only(v)
    )
