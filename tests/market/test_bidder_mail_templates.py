"""Every e-mail the product sends can be rewritten per instance and language (issue 31 part 5):
the template engine offers each one, and a bidder's mail rewritten without its links still
carries the bidder's own page and the unsubscribe link, which the system adds."""

from pathlib import Path

import pytest
from sqlalchemy import delete

from app.admin.mail_templates import EMAILS
from app.core.settings import SettingRow
from app.core.tenancy import activate, active_instance_id
from app.extensions import db
from tests.market._bid import BUYER, link
from tests.market.test_bidder_mail import ad, prepare, queue_and_run, reads  # noqa: F401 (a fixture)

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def test_the_template_engine_offers_every_email_the_product_sends():
    """Every mail, wherever its feature keeps it (templates/<feature>/emails/)."""
    sent = {p.name.removesuffix(".subject.txt") for p in TEMPLATES.glob("*/emails/*.subject.txt")}
    assert len(sent) >= 20
    assert sent == set(EMAILS)


@pytest.mark.parametrize("kind", ["outbid", "won"])
def test_a_rewritten_bidder_mail_keeps_its_page_and_unsubscribe_links(bidder, ad, kind):  # noqa: F811
    reads(BUYER, "en-GB", "Europe/Oslo")
    context = prepare(kind, ad)
    buyer_link = link(ad, BUYER, "bid")
    text = SettingRow(
        instance_id=buyer_link.group.instance_id, kind="email_template",
        name="{app}: news about {regno}", description="<p>Hello {user_name}, news on {regno}.</p>",
        data={"template": f"market_{kind}", "language": "en-GB"},
    )  # fmt: skip
    was = active_instance_id()
    activate(text.instance_id)
    db.session.add(text)
    db.session.flush()
    activate(was)
    try:
        mails = queue_and_run(kind, ad, **context)
    finally:
        db.session.execute(delete(SettingRow).where(SettingRow.id == text.id))
        db.session.commit()
    [mail] = mails
    assert mail.subject.endswith(f"news about {ad.regno}")
    assert f"news on {ad.regno}." in mail.body_text
    assert buyer_link.hash in mail.body_html and "market-bid-unsubscribe" in mail.body_html
    assert buyer_link.hash in mail.body_text and "market-bid-unsubscribe" in mail.body_text
