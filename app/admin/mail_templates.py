"""The template engine's texts in use: an active text of the instance for an e-mail and a
language replaces the product's own subject and body (app.mail.services.send_mail asks here).

Links are placed by the system, never by the text. A placeholder named `…_url` ({reset_url},
{invite_url}, {bid_url}, {page_url}, {unsubscribe_url}) is a link that may carry a secret (a
reset token, a personal bid hash); the text may hold it only as plain text of its own, which the
system turns into its own link to that address (misplaced_links refuses any other place on
save). Texts stored before that rule are rendered the same safe way: a link placeholder in an
attribute makes the system's address that link's whole target (or drops a non-link attribute),
so no mail carries a secret to another site whatever its text says.

Every e-mail the product sends can be rewritten (EMAILS). The links an e-mail needs (a reset's
{reset_url}, a bidder's own page and {unsubscribe_url}) are the system's too: a text that leaves
one out gets it added at its end, so no rewritten mail loses its way back or its unsubscribe.
"""

import re
from html.parser import HTMLParser

import nh3
from flask_babel import lazy_gettext as _l
from markupsafe import escape

from app.core.settings import SettingRow
from app.extensions import db
from app.mail.services import mail_override

BIDDER = ("page_url", "unsubscribe_url")  # a bidder mail's own page and its unsubscribe link
# Every e-mail the product sends (templates/emails/{name}): its name on the template engine's
# screen, and the links it needs (added by the system when a text leaves them out).
EMAILS = {
    "admin_invite": (_l("Invitation to a new user"), ("reset_url",)),
    "password_reset": (_l("Password reset"), ("reset_url",)),
    "account_email_changed": (_l("E-mail address changed"), ()),
    "market_invite": (_l("Market invitation"), ("invite_url",)),
    "market_bid_link": (_l("Market bid link"), ("bid_url",)),
    "market_allocated": (_l("Market allocation"), BIDDER),
    "market_status": (_l("Market status change"), BIDDER),
    "market_outbid": (_l("Bidder: outbid"), BIDDER),
    "market_won": (_l("Bidder: won"), BIDDER),
    "market_countered": (_l("Bidder: counteroffer"), BIDDER),
    "market_provisional": (_l("Bidder: ended under the reserve"), BIDDER),
    "market_unsold": (_l("Bidder: ended unsold"), BIDDER),
    "market_ended": (_l("Seller: bidding has ended"), ("page_url",)),
    "market_reserve_outcome": (_l("Seller: ended unsold"), ("page_url",)),
    "market_saved_search": (_l("Saved search: new match"), ("advert_url", "off_url", "searches_url")),
    "booking_booked": (_l("Booking made"), ()),
    "booking_moved": (_l("Booking moved"), ()),
    "booking_cancelled": (_l("Booking cancelled"), ()),
    "event_rule": (_l("Event rule"), ()),
    "webhook_paused": (_l("Webhook endpoint paused"), ("log_url",)),
    "recon_approval": (_l("Reconditioning estimate to approve"), ("approvals_url",)),
}  # fmt: skip
PLACEHOLDER = re.compile(r"\{(\w+)\}")
ALLOWED_TAGS = {"p", "br", "strong", "em", "a", "ul", "ol", "li", "h2", "h3"}
BLOCKS = {"p", "li", "h2", "h3", "ul", "ol"}  # their end is a line end in the plain text


def is_link(name: str) -> bool:
    """Whether a placeholder is a link the system places (it may carry a secret)."""
    return name.endswith("_url")


def links_in(text: str) -> list[str]:
    return [name for name in PLACEHOLDER.findall(text or "") if is_link(name)]


def fill(text: str, values: dict, html: bool) -> str:
    """Fill the placeholders that are no links; a link's is left out (not in this place: the
    system places links, _Walk.handle_data); an unknown one stays as written."""

    def value(match: re.Match) -> str:
        name = match.group(1)
        if is_link(name):
            return ""
        found = values.get(name)
        if found is None:
            return match.group(0)
        return str(escape(found)) if html else str(found)

    return PLACEHOLDER.sub(value, text or "")


class _Walk(HTMLParser):
    """One pass over a stored text: the HTML and plain text to send (values filled, links
    placed by the system), and the link placeholders found where the text must not put them."""

    def __init__(self, values: dict) -> None:
        super().__init__(convert_charrefs=True)
        self.values, self.html, self.text, self.misplaced = values, [], [], []
        self.anchor: str | None = None  # the open link's target (None: outside a link)
        self.last = ""  # the text's last character since the last tag
        self.after_anchor: list[str] = []  # links written inside a link: placed after it

    def handle_starttag(self, tag: str, attrs: list, closed: bool = False) -> None:
        kept = []
        for name, value in attrs:
            value = value or ""
            links = links_in(value)
            self.misplaced += links
            if tag == "a" and name == "href" and links:
                target = self.values.get(links[0])  # the system's own address, whole
                if target is not None:
                    kept.append((name, str(target)))
            elif not links:
                kept.append((name, fill(value, self.values, html=False)))
        self.last = ""
        if tag == "a":
            self.anchor = next((v for n, v in kept if n == "href"), "")
        elif tag == "br":
            self.text.append("\n")
        attributes = "".join(f' {n}="{escape(v)}"' for n, v in kept)
        self.html.append(f"<{tag}{attributes}{' /' if closed else ''}>")

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.handle_starttag(tag, attrs, closed=True)

    def handle_endtag(self, tag: str) -> None:
        self.last = ""
        if tag == "a" and self.anchor is not None:
            if self.anchor:
                self.text.append(f": {self.anchor}")
            self.anchor = None
        if tag in BLOCKS:
            self.text.append("\n")
        self.html.append(f"</{tag}>")
        if tag == "a":
            for name in self.after_anchor:
                self._link(name)
            self.after_anchor = []

    def handle_data(self, data: str) -> None:
        start = 0
        for match in PLACEHOLDER.finditer(data):
            name = match.group(1)
            if not is_link(name):
                continue
            self._text(data[start : match.start()])
            if self.anchor is not None or (self.last and not self.last.isspace()):
                self.misplaced.append(name)  # inside a link, or joined to other text
            if self.anchor is None:
                self._link(name)
            else:  # not another link's label: the system's own link, after it
                self.after_anchor.append(name)
            start = match.end()
        self._text(data[start:])

    def _text(self, data: str) -> None:
        self.html.append(fill(str(escape(data)), self.values, html=True))
        self.text.append(fill(data, self.values, html=False))
        self.last = data[-1:] or self.last

    def _link(self, name: str) -> None:
        """The system's link to the placeholder's address, set apart from what comes before
        (so that no text before it can make it part of another address)."""
        target = self.values.get(name)
        if target is None:
            self._text(f"{{{name}}}")
            return
        target = str(target)
        self.html.append(f' <a href="{escape(target)}">{escape(target)}</a> ')
        self.text.append(f" {target} ")
        self.last = " "


def walk(body: str, values: dict) -> _Walk:
    walker = _Walk(values)
    walker.feed(body or "")
    walker.close()
    return walker


def misplaced_links(body: str) -> list[str]:
    """The link placeholders a text puts anywhere but as plain text of their own: in an
    attribute (a link's address, an image's source), inside a link, or joined to other text
    (an address of its own: https://example.com/?t={reset_url})."""
    return sorted(set(walk(body, {}).misplaced))


def render(body: str, values: dict) -> tuple[str, str]:
    """(html, text) of a stored body with the values filled in and the links the system's."""
    walker = walk(body, values)
    html = nh3.clean("".join(walker.html), tags=ALLOWED_TAGS)
    text = re.sub(r"[ \t]*\n[ \t]*", "\n", "".join(walker.text))
    return html, re.sub(r"[ \t]{2,}", " ", text).strip() + "\n"


def render_subject(subject: str, values: dict) -> str:
    """The subject with its values; a link never goes in a subject (refused on save)."""
    return " ".join(fill(subject, values, html=False).split())


@mail_override
def override(template: str, language: str, instance_id: int | None, ctx: dict):
    """(subject, html, text) of the instance's active text for this e-mail, or None."""
    if instance_id is None:
        return None
    row = db.session.scalars(
        SettingRow.active_of(
            instance_id,
            "email_template",
            SettingRow.data["template"].as_string() == template,
            SettingRow.data["language"].as_string() == language,
        )
    ).first()
    if row is None:
        return None
    values = {k: v for k, v in ctx.items() if isinstance(v, str | int) and not isinstance(v, bool)}
    values.setdefault("app", ctx.get("app_title", ""))
    html, text = render(row.description, values)
    html, text = with_needed_links(template, row.description, values, html, text)
    return render_subject(row.name, values), html, text


def with_needed_links(template: str, body: str, values: dict, html: str, text: str):
    """(html, text) with every link the e-mail needs that the text left out added at its end."""
    placed = set(links_in(body))
    for name in EMAILS.get(template, ("", ()))[1]:
        target = values.get(name)
        if name in placed or not target:
            continue
        html += f'<p><a href="{escape(target)}">{escape(target)}</a></p>'
        text += f"\n{target}\n"
    return html, text
