"""Entered words per language (issue 37), {locale tag: text}: a rule's warning (the rule keeps
its texts in its data as "warning_texts"; the vehicles it holds for carry them in
item_rule_match.text_texts, as they carry the warning as written); the names of station
packages and purchase priorities (name_texts, app.core.localized.Named); a calculator's title
and its rows' titles (one on each line, as a choice's options); a booking calendar location's
name (its data's "name_texts", as an action's button keeps "label_texts"). Each existing text
goes into its instance's language's slot (the locale of the instance's first country).

Revision ID: c4e8a2f6b1d3
Revises: 5e2b8d4f1a93
"""

import sqlalchemy as sa
from alembic import op

revision = "c4e8a2f6b1d3"
down_revision = "5e2b8d4f1a93"
branch_labels = None
depends_on = None

# table: ((new column, the column its text is copied from), ...)
COLUMNS = {
    "item_rule_match": (("text_texts", "text"),),
    "station_package": (("name_texts", "name"),),
    "purchase_priority": (("name_texts", "name"),),
    "calculator": (("title_texts", "title"),),
}


def _locales(bind) -> dict:
    locales = {}
    for instance_id, locale in bind.execute(
        sa.text("SELECT instance_id, locale FROM country ORDER BY id DESC")
    ):
        locales[instance_id] = locale  # the first country's wins (read last)
    return locales


def upgrade():
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column, _source in columns:
                batch.add_column(
                    sa.Column(column, sa.JSON(), nullable=False, server_default="{}")
                )
    bind = op.get_bind()
    locales = _locales(bind)
    for table, columns in COLUMNS.items():
        rows = sa.table(table, sa.column("id", sa.Integer), sa.column("instance_id", sa.Integer),
                        *(sa.column(s, sa.Text) for _c, s in columns),
                        *(sa.column(c, sa.JSON) for c, _s in columns))  # fmt: skip
        read = sa.select(rows.c.instance_id, *(rows.c[s] for _c, s in columns)).distinct()
        for instance_id, *values in bind.execute(read).all():
            locale = locales.get(instance_id)
            if not locale:
                continue
            for (column, source), value in zip(columns, values, strict=True):
                if value:  # one update per distinct text (many vehicles carry one warning)
                    bind.execute(
                        rows.update()
                        .where(rows.c.instance_id == instance_id, rows.c[source] == value)
                        .values({column: {locale: value}})
                    )
    rows = sa.table("setting_row", sa.column("id", sa.Integer),
                    sa.column("instance_id", sa.Integer), sa.column("kind", sa.String),
                    sa.column("name", sa.String), sa.column("data", sa.JSON))  # fmt: skip
    calculators = sa.table("calculator", sa.column("id", sa.Integer),
                           sa.column("instance_id", sa.Integer), sa.column("rows", sa.JSON),
                           sa.column("row_titles_texts", sa.JSON))  # fmt: skip
    with op.batch_alter_table("calculator") as batch:
        batch.add_column(
            sa.Column("row_titles_texts", sa.JSON(), nullable=False, server_default="{}")
        )
    read = sa.select(calculators.c.id, calculators.c.instance_id, calculators.c.rows)
    for row_id, instance_id, calculator_rows in bind.execute(read).all():
        titles = "\n".join(str((r or {}).get("title") or "") for r in calculator_rows or [])
        if titles.strip() and (locale := locales.get(instance_id)):
            bind.execute(
                calculators.update()
                .where(calculators.c.id == row_id)
                .values(row_titles_texts={locale: titles})
            )
    read = sa.select(rows.c.id, rows.c.instance_id, rows.c.kind, rows.c.name, rows.c.data)
    for row_id, instance_id, kind, name, data in bind.execute(
        read.where(sa.or_(rows.c.kind.like("%.rule"), rows.c.kind == "booking_location"))
    ).all():
        data, locale = data or {}, locales.get(instance_id)
        # a rule's warning, a place's name: the text as written, in the company's language
        key, text = (
            ("warning_texts", data.get("warning")) if kind.endswith(".rule")
            else ("name_texts", name)
        )  # fmt: skip
        if text and locale and not data.get(key):
            bind.execute(
                rows.update().where(rows.c.id == row_id).values(data={**data, key: {locale: text}})
            )


def downgrade():
    with op.batch_alter_table("calculator") as batch:
        batch.drop_column("row_titles_texts")
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column, _source in reversed(columns):
                batch.drop_column(column)
