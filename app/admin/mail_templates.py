"""The template engine's texts in use: an active text of the instance for an e-mail and a
language replaces the product's own subject and body (app.mail.services.send_mail asks here)."""

import re

import nh3
from markupsafe import escape
from sqlalchemy import select

from app.admin.models import SettingRow
from app.extensions import db

PLACEHOLDER = re.compile(r"\{(\w+)\}")
LINK = re.compile(r"<a\s[^>]*href=\"([^\"]*)\"[^>]*>(.*?)</a>", re.S | re.I)


def _fill(text: str, values: dict, html: bool) -> str:
    def value(match: re.Match) -> str:
        found = values.get(match.group(1))
        if found is None:
            return match.group(0)
        return str(escape(found)) if html else str(found)

    return PLACEHOLDER.sub(value, text or "")


def override(template: str, language: str, instance_id: int | None, ctx: dict):
    """(subject, html, text) of the instance's active text for this e-mail, or None."""
    if instance_id is None:
        return None
    row = db.session.scalars(
        select(SettingRow)
        .where(
            SettingRow.instance_id == instance_id,
            SettingRow.kind == "email_template",
            SettingRow.active.is_(True),
            SettingRow.data["template"].as_string() == template,
            SettingRow.data["language"].as_string() == language,
        )
        .execution_options(all_instances=True)
    ).first()
    if row is None:
        return None
    values = {k: v for k, v in ctx.items() if isinstance(v, str | int) and not isinstance(v, bool)}
    values.setdefault("app", ctx.get("app_title", ""))
    html = _fill(row.description, values, html=True)
    plain = LINK.sub(lambda m: f"{m.group(2)}: {m.group(1)}", row.description or "")
    plain = re.sub(r"</p>|<br\s*/?>|</li>", "\n", plain)
    text = _fill(nh3.clean(plain, tags=set()), values, html=False)
    import html as html_module

    return _fill(row.name, values, html=False), html, html_module.unescape(text).strip() + "\n"
