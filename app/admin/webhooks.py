"""Webhooks: the endpoints that receive the events they subscribe to (app/automation), and each
endpoint's delivery log (every delivery with its status, attempts and response times) with
"send again". The signing secret is shown on the endpoint's log page, for its receiver to check
the signatures with."""

from flask import abort, redirect
from flask_babel import format_datetime
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from markupsafe import Markup, escape
from sqlalchemy import select

from app.admin.crud import Column, FormRefused, Screen, render_screen
from app.admin.fields import flag, many, text
from app.auth.viewer import Viewer
from app.automation.engine import EVENT_NAMES
from app.automation.models import WebhookDelivery, WebhookEndpoint
from app.automation.webhooks import Refused, check_url, send_again
from app.core.happenings import EVENTS
from app.extensions import db

PATH = "general/webhooks"


class WebhookForm(FlaskForm):
    name = text(_l("Name"), hint=_l("Who receives the events, such as the website or the DMS."))
    url = text(
        _l("Web address"), 500,
        hint=_l("An https address on the internet; it gets a signed POST for every event it subscribes to."),
    )  # fmt: skip
    events = many(_l("Events"))
    active = flag(_l("Active"), _l("An inactive endpoint gets nothing."))


def _prepare(form: WebhookForm, v: Viewer, row: WebhookEndpoint | None) -> None:
    form.events.choices = [(name, str(EVENT_NAMES[name])) for name in EVENTS]
    if row is None and not form.is_submitted():
        form.active.data = True


def _save(row: WebhookEndpoint, form: WebhookForm, v: Viewer) -> None:
    try:
        check_url(form.url.data)
    except Refused as exc:
        text = _("This address cannot receive webhooks: %(reason)s.", reason=str(exc))
        raise FormRefused({"url": text}) from None
    row.name, row.url, row.active = form.name.data, form.url.data, bool(form.active.data)
    row.events = [name for name in EVENTS if name in form.events.data]
    if row.id is None:
        row.stamp(v.user.id)
    if row.active:
        row.paused_at, row.failed_in_row = None, 0  # saved as active: resumed


def _state(row: WebhookEndpoint) -> str:
    if not row.active:
        return _("Inactive")
    return _("Paused") if row.paused_at else _("Active")


def _log_link(row: WebhookEndpoint) -> Markup:
    return Markup('<a href="{}">{}</a>').format(
        f"/admin/{PATH}/{row.id}/deliveries", escape(_("Delivery log"))
    )


WEBHOOKS = Screen(
    path=PATH,
    noun=_l("webhook endpoint"),
    model=WebhookEndpoint,
    form=WebhookForm,
    columns=(
        Column(_l("Name"), "name"),
        Column(_l("Web address"), "url"),
        Column(_l("Events"), lambda r: ", ".join(r.events or [])),
        Column(_l("State"), _state),
        Column(_l("Deliveries"), _log_link),
    ),
    intro=_l(
        "Web addresses that receive the events they subscribe to as signed JSON (HMAC-SHA256 with a timestamp), retried with back-off; one that keeps failing is paused and you are told by e-mail."
    ),
    search=("name", "url"),
    order_by=(WebhookEndpoint.name,),
    prepare=_prepare,
    save=_save,
)


def deliveries(endpoint_id: int):
    """The endpoint's delivery log, newest first, with every attempt."""
    v = WEBHOOKS.guard()
    endpoint = WEBHOOKS.get(v, endpoint_id)
    rows = db.session.scalars(
        select(WebhookDelivery)
        .where(WebhookDelivery.endpoint_id == endpoint.id)
        .order_by(WebhookDelivery.id.desc())
        .limit(100)
    ).all()
    return render_screen(
        WEBHOOKS,
        "webhook_deliveries.html",
        subpage=endpoint.name,
        endpoint=endpoint,
        deliveries=rows,
        can_change=WEBHOOKS.may_write(v),
        when=lambda moment: format_datetime(moment, "y-MM-dd HH:mm:ss") if moment else "–",
    )


def deliver_again(endpoint_id: int, delivery_id: int):
    """Send one delivery again now (and resume its endpoint if it was paused)."""
    endpoint = WEBHOOKS.get(WEBHOOKS.guard(write=True), endpoint_id)
    delivery = db.session.scalars(
        select(WebhookDelivery).where(
            WebhookDelivery.id == delivery_id, WebhookDelivery.endpoint_id == endpoint.id
        )
    ).first()
    if delivery is None:
        abort(404)
    send_again(delivery)
    db.session.commit()
    return redirect(f"/admin/{PATH}/{endpoint.id}/deliveries")


def register_log(bp) -> None:
    base = f"/admin/{PATH}/<int:endpoint_id>/deliveries"
    bp.add_url_rule(base, "webhook_deliveries", deliveries)
    bp.add_url_rule(
        f"{base}/<int:delivery_id>/send-again",
        "webhook_send_again",
        deliver_again,
        methods=["POST"],
    )
