"""Demo system messages: an active alert and an active dialog for each demo company, written in
its country's language from the catalogue, with the title and description in all seven languages
(each user reads them in their own, app.core.localized)."""

from datetime import timedelta

from flask_babel import force_locale
from flask_babel import gettext as _
from markupsafe import Markup, escape
from sqlalchemy import select

from app.core.i18n import DEFAULT_LOCALE, LOCALES, babel_name, to_locale
from app.core.models import Country, utcnow
from app.demo import seeder
from app.extensions import db
from app.messages import services
from app.messages.models import SystemMessage

BOLD = {"start": Markup("<strong>"), "end": Markup("</strong>")}


def _paragraph(text: str, **marks: Markup) -> Markup:
    """A translated sentence as a paragraph; `marks` fill its placeholders with markup."""
    return Markup("<p>{}</p>").format(escape(text) % marks if marks else text)


def alert() -> dict:
    """The maintenance alert, in the current locale."""
    return {
        "type": "info",
        "message": _(
            "Planned maintenance on Sunday 06:00–07:00 UTC: DealerCare may be unavailable."
        ),
        "description": _paragraph(_("We update the servers. Vehicles and bids are not affected.")),
        "show_as": "alert",
    }


def modal() -> dict:
    """The dialog that introduces the ranking, in the current locale."""
    points = (
        _("Points are recomputed every few minutes."),
        _("A new season starts every quarter."),
    )
    return {
        "type": "success",
        "message": _("New: the ranking of your divisions"),
        "description": (
            _paragraph(
                # NOTE: %(start)s and %(end)s enclose the words shown in bold.
                _(
                    "Every division now collects points in a %(start)sranking season%(end)s: "
                    "vehicles prepared for the showroom (more when on time), sold vehicles and "
                    "market sales."
                ),
                **BOLD,
            )
            + _paragraph(
                # NOTE: %(entry)s is the user menu's entry "Ranking".
                _("See where your divisions stand under %(entry)s in the user menu."),
                entry=Markup("<em>{}</em>").format(_("Ranking")),
            )
            + Markup("<ul>{}</ul>").format(
                Markup().join(Markup("<li>{}</li>").format(point) for point in points)
            )
        ),
        "show_as": "modal",
    }


def company_languages() -> dict[int, str]:
    """Each company's id with the language of its (first) country."""
    rows = db.session.execute(
        select(Country.instance_id, Country.locale)
        .order_by(Country.instance_id, Country.id)
        .execution_options(all_instances=True)
    ).all()
    languages: dict[int, str] = {}
    for instance_id, locale in rows:
        languages.setdefault(instance_id, to_locale(locale) or DEFAULT_LOCALE)
    return languages


@seeder(60)
def seed_system_messages(ctx: dict) -> None:
    """An active alert and an active dialog for the users of each company, in its language."""
    admin = ctx.get("users", {}).get("admin@demo.test")
    start = utcnow().replace(minute=0, second=0, microsecond=0) - timedelta(days=1)
    written = {}
    for tag in LOCALES:
        with force_locale(babel_name(tag)):
            written[tag] = (alert(), modal())
    for instance_id, language in company_languages().items():
        for index, values in enumerate(written[language]):
            texts = {tag: messages[index] for tag, messages in written.items()}
            services.save(
                SystemMessage(),
                {
                    **values,
                    "message_texts": {tag: v["message"] for tag, v in texts.items()},
                    "description_texts": {tag: v["description"] for tag, v in texts.items()},
                    "audience": "instance",
                    "audience_instance_id": instance_id,
                    "started_at": start,
                    "ended_at": start + timedelta(days=90),
                },
                admin.id if admin else None,
            )
