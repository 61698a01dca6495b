"""Entered words per language (issue 37) for the advert's description, the quick-test
template's titles (the template, its kind, its groups, its informations) and the options of the
admin-defined choices (quick-test informations, purchase-analysis fields), {locale tag: text}.
Each existing text goes into its instance's language's slot (the locale of the instance's first
country); a choice's options go there one on each line. Stored answers keep naming an option as
first written, so existing quick tests and analyses read as before.

Revision ID: f3b7c2d9a4e1
Revises: a8c2e5f7b9d1
"""

import sqlalchemy as sa
from alembic import op

revision = "f3b7c2d9a4e1"
down_revision = "a8c2e5f7b9d1"
branch_labels = None
depends_on = None

# table: ((new column, the column its text is copied from), ...)
COLUMNS = {
    "advert": (("description_texts", "description"),),
    "storage": (("title_texts", "title"), ("group_texts", "group")),
    "storage_group": (("title_texts", "title"),),
    "information": (("title_texts", "title"), ("choices_texts", "choices")),
    "purchase_dynamic_field": (("choices_texts", "choices"),),
}


def _text(value) -> str | None:
    if isinstance(value, list):  # a choice's options, one on each line
        return "\n".join(str(v) for v in value) or None
    return value or None


def upgrade():
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column, _source in columns:
                batch.add_column(
                    sa.Column(column, sa.JSON(), nullable=False, server_default="{}")
                )
    bind = op.get_bind()
    locales = {}
    for instance_id, locale in bind.execute(
        sa.text("SELECT instance_id, locale FROM country ORDER BY id DESC")
    ):
        locales[instance_id] = locale  # the first country's wins (read last)
    for table, columns in COLUMNS.items():
        sources = [sa.column(source, sa.JSON if source == "choices" else sa.Text)
                   for _column, source in columns]  # fmt: skip
        rows = sa.table(table, sa.column("id", sa.Integer), sa.column("instance_id", sa.Integer),
                        *sources, *(sa.column(c, sa.JSON) for c, _s in columns))  # fmt: skip
        read = sa.select(rows.c.id, rows.c.instance_id, *(rows.c[s] for _c, s in columns))
        for row_id, instance_id, *values in bind.execute(read).all():
            locale = locales.get(instance_id)
            texts = {
                column: {locale: text}
                for (column, _source), value in zip(columns, values, strict=True)
                if locale and (text := _text(value))
            }
            if texts:
                bind.execute(rows.update().where(rows.c.id == row_id).values(**texts))


def downgrade():
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column, _source in reversed(columns):
                batch.drop_column(column)
