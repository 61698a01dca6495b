"""A mail rendered in its recipient's language leaves the sender's pages in their own language
(issue 29): the seller's menus once came out in the language of a mail sent in the same worker."""

import pytest
from sqlalchemy import select

from app.auth.viewer import SNAPSHOTS
from app.extensions import db
from app.mail.models import EmailMessage
from tests.helpers import sign_in
from tests.shell._language import language_problems, menu_titles
from tests.shell.conftest import demo_user

PAGES = ("/begcare", "/user", "/begcare/items/incoming", "/my-dashboard")


@pytest.mark.parametrize(("page_locale", "mail_locale"), [("en-GB", "sv-SE"), ("sv-SE", "en-GB")])
def test_an_invitation_mailed_in_another_language_leaves_the_menus_in_the_pages(
    demo_app, demo_client, page_locale, mail_locale
):
    address = f"inbox-{mail_locale.lower()}@sprakbil.example"
    token = sign_in(demo_client, demo_user("seller@demo.test"))
    headers = {"Accept-Language": page_locale}
    SNAPSHOTS.clear()  # a worker that has not drawn the seller's menus in this language yet
    sent = demo_client.post(
        "/market/invites",
        data={
            "csrf_token": token,
            "company_name": "Språkbil AB",
            "email": address,
            "language": mail_locale,
        },
        headers=headers,
    )
    assert sent.status_code == 302, sent.location
    assert sent.location.endswith("/market/invites"), sent.location
    mail = db.session.scalars(
        select(EmailMessage)
        .where(EmailMessage.to_address == address)
        .execution_options(all_instances=True)
    ).one()
    assert mail.language == mail_locale  # rendered in this request, in its own language
    titles = menu_titles(demo_app, page_locale)
    for path in PAGES:
        page = demo_client.get(path, headers=headers).get_data(as_text=True)
        assert language_problems(page, page_locale, titles) == [], path
