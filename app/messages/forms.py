"""The form of the system-message admin screen."""

from datetime import UTC

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import to_user_timezone, to_utc
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    RadioField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
    ValidationError,
)
from wtforms.validators import Optional

from app.core.forms import text_field, too_long, when_field
from app.core.localized import TextsField
from app.core.messages import KEYS

MESSAGE_MAX = 300
DESCRIPTION_MAX = 20_000

TYPE_CHOICES = {
    "info": _l("Information"),
    "warning": _l("Warning"),
    "success": _l("Success"),
    "rankingSummary": _l("Ranking summary"),
    "danger": _l("Danger"),
}
SHOW_AS_CHOICES = {"alert": _l("Alert at the bottom of the page"), "modal": _l("Dialog")}
AUDIENCE_CHOICES = {
    "all": _l("Every user"),
    "instance": _l("The users of one company"),
    "role": _l("The holders of one role"),
}


def _choices(table: dict) -> list:
    return [SelectChoice(k, v) for k, v in table.items()]


def _optional_id(value):
    return int(value) if value not in (None, "", "None") else None


def utc(moment):
    """A time typed in the reader's time zone, in UTC."""
    return None if moment is None else to_utc(moment).replace(tzinfo=UTC)


def local(moment):
    """A stored UTC time as the datetime-local field shows it."""
    return None if moment is None else to_user_timezone(moment).replace(tzinfo=None)


class SystemMessageForm(FlaskForm):
    type = SelectField(_l("Type"), choices=_choices(TYPE_CHOICES))
    message = text_field(_l("Message"), MESSAGE_MAX, required=True, autocomplete="off")
    message_texts = TextsField(
        _l("Message in each language"),
        max_length=MESSAGE_MAX,
        description=_l(
            "Each user reads the message in their language; where that is empty, in their "
            "company's language, else as written above."
        ),
    )
    description = TextAreaField(
        _l("Description (HTML)"),
        validators=[Optional(), too_long(DESCRIPTION_MAX)],
        render_kw={"rows": 8, "maxlength": DESCRIPTION_MAX},
        description=_l(
            "Paragraphs, lists, headings, tables and links (http, https, mailto). Scripts, "
            "styles and event handlers are removed when the message is saved."
        ),
    )
    description_texts = TextsField(
        _l("Description in each language (HTML)"),
        max_length=DESCRIPTION_MAX,
        multiline=True,
        description=_l(
            "Each user reads the description in their language; where that is empty, in their "
            "company's language, else as written above."
        ),
    )
    started_at = when_field(_l("Shown from"))
    ended_at = when_field(
        _l("Shown until"),
        required=False,
        description=_l("Leave empty to show the message until it is changed."),
    )
    show_as = RadioField(_l("Show as"), choices=_choices(SHOW_AS_CHOICES), default="alert")
    persistent = BooleanField(
        _l("Persistent"),
        description=_l(
            "A persistent message comes back on every page until it ends: closing hides it only "
            "on the page, and the dialog offers no “Do not show again”."
        ),
    )
    audience = SelectField(_l("Shown to"), choices=_choices(AUDIENCE_CHOICES), default="all")
    audience_instance_id = SelectField(
        _l("Company"),
        coerce=_optional_id,
        validate_choice=False,
        description=_l("Only when the message is shown to one company."),
    )
    audience_role = StringField(
        _l("Role"),
        validators=[too_long(100)],
        render_kw={"maxlength": 100, "autocomplete": "off", "placeholder": "ROLE_…"},
        description=_l(
            "Only when the message is shown to the holders of one role, e.g. ROLE_STATION_USER."
        ),
    )

    instance_ids: set[int] = set()

    def set_instances(self, instances) -> None:
        """The companies a message may be shown to."""
        self.instance_ids = {i.id for i in instances}
        self.audience_instance_id.choices = [SelectChoice("", _("Choose a company"))] + [
            SelectChoice(i.id, i.company_name) for i in instances
        ]

    def validate_ended_at(self, field) -> None:
        if field.data and self.started_at.data and field.data <= self.started_at.data:
            raise ValidationError(_("The end must come after the start."))

    def validate_audience_instance_id(self, field) -> None:
        if self.audience.data != "instance":
            return
        if field.data is None:
            raise ValidationError(KEYS["FIELD_REQUIRED"] % {})
        if field.data not in self.instance_ids:
            raise ValidationError(_("Choose a company from the list."))

    def validate_audience_role(self, field) -> None:
        if self.audience.data != "role":
            return
        value = (field.data or "").strip().upper()
        if not value:
            raise ValidationError(KEYS["FIELD_REQUIRED"] % {})
        if not value.replace("_", "").isalnum():
            raise ValidationError(_("A role is written in capitals, digits and underscores."))
        field.data = value

    def values(self) -> dict:
        return {
            "type": self.type.data,
            "message": " ".join(self.message.data.split()),
            "message_texts": self.message_texts.data or {},
            "description": self.description.data or "",
            "description_texts": self.description_texts.data or {},
            "started_at": utc(self.started_at.data),
            "ended_at": utc(self.ended_at.data),
            "persistent": self.persistent.data,
            "show_as": self.show_as.data,
            "audience": self.audience.data,
            "audience_instance_id": self.audience_instance_id.data,
            "audience_role": self.audience_role.data,
        }
