"""Data providers (general/providers): the HTTP JSON adapters of app.providers, one row each, and
a Test page that calls one with a sample and shows its mapped answer or what went wrong. The
auth header's value is a secret: stored, shown masked, never sent back to the browser."""

import re

from flask import request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import PasswordField, SelectField
from wtforms.validators import InputRequired, Length, Optional, ValidationError

from app.admin.crud import Column, render_screen
from app.admin.fields import flag, long_text, text
from app.admin.settings import kind_screen, load_named, save_named
from app.core.messages import KEYS
from app.core.numbers import whole_number
from app.providers import services as svc

PATH = "general/providers"
HEADER_NAME = r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"  # an HTTP token (RFC 9110)
# What the Test page fills in first: one of the demo provider's vehicles (README).
SAMPLE = {"regno": "ABC123", "vin": "", "brand": "Volvo", "model": "XC60", "year": "2021",
          "mileage": "45000"}  # fmt: skip


def _map_field(label, first: bool):
    """A JSON path of the answer for one of our fields (empty: the field is not filled)."""

    def check(form, field) -> None:
        message = svc.path_error(field.data)
        if message:
            raise ValidationError(message)

    hint = _l(
        "Where the answer holds it, such as vehicle.make or prices[0].value; empty: not filled."
    )
    unbound = text(_l("JSON path: %(field)s", field=label), 200, required=False,
                   hint=hint if first else None)  # fmt: skip
    unbound.kwargs["validators"].append(check)
    return unbound


class _ProviderForm(FlaskForm):
    def validate_url(self, field) -> None:
        message = svc.template_error(field.data)
        if message:
            raise ValidationError(message)

    def validate_auth_header(self, field) -> None:
        if field.data and not re.match(HEADER_NAME, field.data):
            raise ValidationError(_("Letters, digits and - only, such as X-Api-Key."))

    def validate_kind(self, field) -> None:
        if not any(getattr(self, f"map_{name}").data for name in svc.FIELDS.get(field.data, ())):
            raise ValidationError(_("Map at least one field of this kind to a JSON path."))


MAPPED = [name for fields in svc.FIELDS.values() for name in fields]
ProviderForm = type("ProviderForm", (_ProviderForm,), {
    "name": text(_l("Name"), 120),
    "description": long_text(_l("Description")),
    "kind": SelectField(_l("Kind"), validators=[InputRequired(KEYS["FIELD_REQUIRED"])]),
    "url": text(
        _l("URL template"), 500,
        hint=_l("http:// or https:// with the site's name; placeholders are filled URL-encoded: %(placeholders)s.",
                placeholders=", ".join(f"{{{p}}}" for p in svc.PLACEHOLDERS)),
    ),
    "auth_header": text(
        _l("Auth header name"), 100, required=False,
        hint=_l("Such as Authorization or X-Api-Key; empty: no header is sent."),
    ),
    "auth_value": PasswordField(
        _l("Auth header value"),
        validators=[Optional(), Length(max=500, message=KEYS["FIELD_TOO_LONG"])],
        render_kw={"autocomplete": "new-password", "maxlength": 500},
    ),
    **{f"map_{name}": _map_field(label, n == 0) for fields in svc.FIELDS.values()
       for n, (name, label) in enumerate(fields.items())},
    "timeout": whole_number(_l("Time-out in seconds"), *svc.TIMEOUT_RANGE),
    "cache_minutes": whole_number(
        _l("Cache lifetime in minutes"), 0, svc.CACHE_MINUTES_MAX,
        _l("How long an answer is reused for the same question; 0: never."),
    ),
    "active": flag(_l("Active"), _l("The first active provider of a kind (by name) is the one used.")),
})  # fmt: skip


def _prepare(form, v, row) -> None:
    form.kind.choices = [(k, str(label)) for k, label in svc.KINDS.items()]
    secret = (row.data or {}).get("auth_value") if row is not None else ""
    form.auth_value.description = (
        _("Stored: %(masked)s. Leave empty to keep it; clear the header name to remove it.",
          masked=svc.mask(secret))
        if secret
        else _("Sent as the header's value; stored, and never shown again in full.")
    )  # fmt: skip
    if row is None and not form.is_submitted():
        form.active.data, form.timeout.data, form.cache_minutes.data = True, 5, 60


def _load(form, row) -> None:
    provider = svc.Provider.of(row)
    load_named(form, row)
    form.kind.data, form.url.data = provider.kind, provider.url
    form.auth_header.data = provider.auth_header
    form.timeout.data, form.cache_minutes.data = provider.timeout, provider.cache_minutes
    for name in MAPPED:
        getattr(form, f"map_{name}").data = provider.mapping.get(name, "")


def _save(row, form, v) -> None:
    save_named(row, form)
    old = row.data or {}
    header = form.auth_header.data or ""
    secret = (form.auth_value.data or old.get("auth_value") or "") if header else ""
    row.data = {
        "kind": form.kind.data,
        "url": form.url.data,
        "auth_header": header,
        "auth_value": secret,
        "mapping": {
            name: getattr(form, f"map_{name}").data
            for name in svc.FIELDS[form.kind.data]
            if getattr(form, f"map_{name}").data
        },
        "timeout": form.timeout.data,
        "cache_minutes": form.cache_minutes.data,
    }


def _snapshot(row) -> dict:
    """The audit entry's values: the secret masked."""
    data = dict(row.data or {})
    data["auth_value"] = svc.mask(data.get("auth_value") or "")
    return {"name": row.name, "description": row.description, "active": row.active, "data": data}


def _auth(row) -> str:
    provider = svc.Provider.of(row)
    if not provider.auth_header:
        return "–"
    return f"{provider.auth_header}: {svc.mask(provider.auth_value)}"


PROVIDERS = kind_screen(
    PATH, svc.ROW_KIND, _l("data provider"),
    _l("Data providers deliver vehicle data by registration number or VIN, and valuations: the add-vehicle form and the purchase analyses ask the first active provider of each kind. Each answers JSON; map its fields to ours."),
    ProviderForm,
    (Column(_l("Name"), "name"),
     Column(_l("Kind"), lambda r: str(svc.KINDS[svc.Provider.of(r).kind])),
     Column(_l("URL template"), lambda r: svc.Provider.of(r).url, css="wrap-anywhere"),
     Column(_l("Auth header"), _auth),
     Column(_l("Active"), "active")),
    prepare=_prepare,
    load=_load,
    save=_save,
    snapshot=_snapshot,
    row_links=((_l("Test"), lambda r: f"/admin/{PATH}/{r.id}/test"),),
)  # fmt: skip


def test_page(row_id: int):
    """Call the provider with a sample (fresh, not from the cache) and show the mapped answer or
    what went wrong; GET shows the sample form."""
    v = PROVIDERS.guard(write=True)
    row = PROVIDERS.get(v, row_id)
    provider = svc.Provider.of(row)
    sample = {k: (request.form.get(k, "") if request.method == "POST" else SAMPLE[k])[:100]
              for k in svc.PLACEHOLDERS}  # fmt: skip
    answer = error = None
    if request.method == "POST":
        try:
            answer = svc.call(provider, sample, fresh=True)
        except svc.ProviderError as exc:
            error = str(exc)
    return render_screen(
        PROVIDERS,
        "provider_test.html",
        422 if error else 200,
        subpage=row.name,
        provider=provider,
        kind_label=svc.KINDS[provider.kind],
        labels=svc.FIELDS[provider.kind],
        sample=sample,
        answer=answer,
        error=error,
        url=svc.fill_url(provider.url, sample),
    )


def register_test(bp) -> None:
    bp.add_url_rule(
        f"/admin/{PATH}/<int:row_id>/test", "provider_test", test_page, methods=["GET", "POST"]
    )
