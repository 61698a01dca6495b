"""Dashboard widgets whose title is one of the project's preset titles, stored in the language of
whoever opened the dashboard first ("I flödet", "Stock days"), keep no title and name the preset
instead (options["preset"]): each reader reads it in their language (issue 37,
app.dashboard.services.default_title). Titles a user typed stay as they are.

Revision ID: a8c2e5f7b9d1
Revises: f1b7d4a9c2e6
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "a8c2e5f7b9d1"
down_revision = "f1b7d4a9c2e6"
branch_labels = None
depends_on = None

# The presets' titles as the catalogues had them: en-GB, sv-SE, nb-NO, fi-FI, da-DK, de-DE, nl-NL.
PRESETS = {
    "inFlow": ("In the flow", "I flödet", "I flyten", "Työnkulussa", "I flow", "Im Ablauf",
               "In de stroom"),
    "soldThisMonth": ("Sold this month", "Sålda denna månad", "Solgt denne måneden",
                      "Myyty tässä kuussa", "Solgt denne måned", "Diesen Monat verkauft",
                      "Deze maand verkocht"),
    "stockDays": ("Stock days", "Lagerdagar", "Lagerdager", "Varastopäivät", "Lagerdage",
                  "Standtage", "Stadagen"),
    "soldPerMonth": ("Sold per month", "Sålda per månad", "Solgt per måned",
                     "Myydyt kuukausittain", "Solgt pr. måned", "Verkauft pro Monat",
                     "Verkocht per maand"),
    "vehiclesPerState": ("Vehicles per state", "Fordon per status", "Kjøretøy per status",
                         "Ajoneuvot tiloittain", "Køretøjer pr. status", "Fahrzeuge nach Status",
                         "Voertuigen per status"),
    # a list grouped by state reads "Per state" without a preset
    "": ("Per state", "Per läge", "Per status", "Tiloittain", "Pr. status", "Pro Status"),
}  # fmt: skip
BY_TITLE = {title: key for key, titles in PRESETS.items() for title in titles}


def _widgets():
    """The widgets' table and its (id, title, options) rows."""
    widgets = sa.table(
        "dashboard_widget",
        sa.column("id", sa.Integer),
        sa.column("title", sa.String),
        sa.column("options", sa.JSON),
    )
    rows = op.get_bind().execute(sa.select(widgets.c.id, widgets.c.title, widgets.c.options))
    return widgets, [
        (row_id, title, json.loads(options) if isinstance(options, str) else dict(options or {}))
        for row_id, title, options in rows.all()
    ]


def upgrade():
    widgets, rows = _widgets()
    for widget_id, title, options in rows:
        key = BY_TITLE.get((title or "").strip())
        if key is None:
            continue
        if key:
            options["preset"] = key
        op.get_bind().execute(
            widgets.update().where(widgets.c.id == widget_id).values(title="", options=options)
        )


def downgrade():
    """The preset's English title back into the widgets that name one (the rest stay untitled)."""
    widgets, rows = _widgets()
    for widget_id, title, options in rows:
        key = options.pop("preset", None)
        if key in PRESETS and not title:
            op.get_bind().execute(
                widgets.update()
                .where(widgets.c.id == widget_id)
                .values(title=PRESETS[key][0], options=options)
            )
