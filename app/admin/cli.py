"""`flask create-admin EMAIL`: the first administrator of a new installation."""

import os

import click
from email_validator import EmailNotValidError, validate_email
from flask import Flask, current_app
from sqlalchemy import select

from app.admin.users import invite
from app.auth.models import MODULES, User
from app.auth.services import find_user, normalise_email
from app.core import jobs
from app.core import roles as R
from app.core.i18n import DEFAULT_LOCALE
from app.core.models import Instance
from app.core.tenancy import activate
from app.extensions import db

ADMIN_ROLES = [
    "ROLE_USER", R.ROLE_ADMIN, R.ROLE_MANAGER_ADMIN, R.IS_IMPERSONATOR,
    *R.ALL_TENANT_ROLES, *R.ALL_GLOBAL_ROLES,
]  # fmt: skip


def create_admin(email: str, company: str, language: str = DEFAULT_LOCALE):
    """Create the administrator (and an instance when there is none). Returns (user, mail or
    None); None for the user when the address is already taken."""
    email = normalise_email(email)
    if find_user(email) is not None:
        return None, None
    activate(None)
    instance = db.session.scalars(
        select(Instance).order_by(Instance.id).execution_options(all_instances=True)
    ).first()
    if instance is None:
        instance = Instance(company_name=company)
        db.session.add(instance)
        db.session.flush()
    user = User(
        email=email,
        firstname="",
        lastname="",
        roles=list(ADMIN_ROLES),
        modules=list(MODULES),
        options={"language": language},
        all_divisions=True,
        instances=[instance],
        home_instance_id=instance.id,
        active_instance_id=instance.id,
    )
    db.session.add(user)
    db.session.flush()
    mail = invite(user)
    return user, mail


def register_cli(app: Flask) -> None:
    @app.cli.command("create-admin")
    @click.argument("email")
    @click.option("--company", default="DealerCare", help="The first instance's name.")
    @click.option("--language", default=DEFAULT_LOCALE, help="The administrator's language.")
    def create_admin_command(email: str, company: str, language: str) -> None:
        """Create the first administrator and print the link to choose a password."""
        try:
            validate_email(email, check_deliverability=False)
        except EmailNotValidError as exc:
            raise click.ClickException(f"{email} is not a valid e-mail address: {exc}") from None
        base = os.environ.get("PUBLIC_URL") or "http://localhost:5000"
        with current_app.test_request_context(base_url=base):
            user, mail = create_admin(email, company, language)
            if user is None:
                db.session.rollback()
                click.echo(f"{email} already exists; nothing changed.")
                return
            db.session.commit()

            jobs.dispatch()
            click.echo(f"Administrator {user.email} created in instance {user.home_instance_id}.")
            click.echo(f"Invitation e-mail: {base.rstrip('/')}/email-preview/{mail.public_id}")
            link = mail.body_text.split("http", 1)[1].split()[0]
            click.echo(f"Choose a password at: http{link}")
