"""Flask extensions, created unbound here and bound to the app in create_app."""

from flask import g
from flask_babel import Babel
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect as _CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

# Stable constraint names keep migrations identical on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _render_item(type_: str, obj, autogen_context):
    """Write our column types as plain SQLAlchemy types, so migrations import nothing of ours."""
    if type_ == "type" and hasattr(obj, "impl") and type(obj).__module__.startswith("app."):
        autogen_context.imports.add("import sqlalchemy as sa")
        return f"sa.{obj.impl!r}"
    return False


class CSRFProtect(_CSRFProtect):
    """Flask-WTF's CSRF check, except for a request marked stateless (`g.stateless`: a call made
    with a valid API token and no session cookie, app/auth/tokens.py). A forged request rides on
    the victim's cookie; a call that sends none has nothing to forge. A request that sends the
    session cookie is always checked, whatever else it carries."""

    def protect(self, apply_exemptions=False):
        if g.get("stateless"):
            return
        super().protect(apply_exemptions=apply_exemptions)


db = SQLAlchemy(model_class=Base)
migrate = Migrate(render_as_batch=True, compare_type=True, render_item=_render_item)
login_manager = LoginManager()
babel = Babel()
csrf = CSRFProtect()
