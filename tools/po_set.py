"""Set translations in one catalogue from a JSON object {msgid: msgstr}.

python tools/po_set.py de-DE translations.json     (or - for standard input)
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from babel.messages.pofile import read_po, write_po  # noqa: E402

from app.core.i18n import catalogue_path  # noqa: E402


def main(tag: str, source: str) -> int:
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    values = json.loads(text)
    path = catalogue_path(tag)
    with path.open("rb") as fh:
        catalog = read_po(fh)
    unknown = [msgid for msgid in values if msgid not in catalog]
    for msgid, text in values.items():
        if msgid in catalog:
            catalog[msgid].string = text
            catalog[msgid].flags.discard("fuzzy")
    with path.open("wb") as fh:
        write_po(fh, catalog, width=100)
    print(
        f"{tag}: {len(values) - len(unknown)} set", *(f"unknown: {u!r}" for u in unknown), sep="\n"
    )
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
