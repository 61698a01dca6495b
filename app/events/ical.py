"""RFC 5545 output: a VCALENDAR of VEVENTs, CRLF lines folded at 75 octets, text escaped.

Times are written in UTC (`...Z`, RFC 5545 section 3.3.5 form 2), which every calendar program
shows in its reader's own zone without a VTIMEZONE block; X-WR-TIMEZONE names the user's zone
for the programs that read it."""

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

EVENT_MINUTES = 30


def escape(text: str) -> str:
    """TEXT value escaping (section 3.3.11)."""
    return (
        text.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
    )


def fold(line: str) -> str:
    """Fold a content line into pieces of at most 75 octets (section 3.1), never inside a
    UTF-8 character."""
    raw = line.encode("utf-8")
    if len(raw) <= 75:
        return line
    parts, current, limit = [], b"", 75
    for char in line:
        encoded = char.encode("utf-8")
        if len(current) + len(encoded) > limit:
            parts.append(current.decode("utf-8"))
            current, limit = b"", 74  # continuation lines begin with one space
        current += encoded
    parts.append(current.decode("utf-8"))
    return "\r\n ".join(parts)


def utc_stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def calendar(
    events: Iterable, *, name: str, zone: str, host: str, base_url: str, now: datetime
) -> str:
    """The feed: one VEVENT per event, EVENT_MINUTES long unless it says when it ends, with
    its link."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//DealerCare//My events//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape(name)}",
        f"X-WR-TIMEZONE:{zone}",
        "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
    ]
    for event in events:
        url = base_url.rstrip("/") + event.href
        summary = escape(f"{event.label}: {event.title}")
        description = escape(f"{event.detail}\n{url}" if event.detail else url)
        lines += [
            "BEGIN:VEVENT",
            f"UID:{event.uid}@{host}",
            f"DTSTAMP:{utc_stamp(now)}",
            f"DTSTART:{utc_stamp(event.at)}",
            f"DTEND:{utc_stamp(event.until or event.at + timedelta(minutes=EVENT_MINUTES))}",
            f"SUMMARY:{summary}",
            f"DESCRIPTION:{description}",
            f"URL:{url}",
            f"CATEGORIES:{escape(event.label)}",
            "TRANSP:TRANSPARENT",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)
