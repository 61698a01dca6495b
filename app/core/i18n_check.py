"""Catalogue check for CI: nothing left unextracted, untranslated or fuzzy in any locale."""

import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.pofile import read_po, write_po

from app.config import ROOT
from app.core.i18n import LOCALES, catalogue_path, is_message_key


def _ids(catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def main() -> int:
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "messages.pot"
        subprocess.run(  # noqa: S603
            [str(ROOT / ".venv/bin/pybabel"), "-q", "extract", "-F", "babel.cfg",
             "-k", "_l", "-k", "_k", "-o", str(fresh), "."],
            check=True, cwd=ROOT,
        )  # fmt: skip
        with fresh.open("rb") as fh:
            wanted = _ids(read_po(fh))
    with (ROOT / "translations/messages.pot").open("rb") as fh:
        template = _ids(read_po(fh))
    if wanted != template:
        problems.append(
            f"translations/messages.pot is stale ({len(wanted - template)} new, "
            f"{len(template - wanted)} gone): run `make i18n-update` and translate"
        )
    for tag in LOCALES:
        path = catalogue_path(tag)
        if not path.exists():
            problems.append(f"{path.relative_to(ROOT)} is missing")
            continue
        with path.open("rb") as fh:
            catalog = read_po(fh)
        missing = wanted - _ids(catalog)
        untranslated = [m.id for m in catalog if m.id and not (m.string and all(m.string))]
        fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
        for label, items in (
            ("missing", missing),
            ("untranslated", untranslated),
            ("fuzzy", fuzzy),
        ):
            if items:
                sample = ", ".join(repr(i) for i in sorted(map(str, items))[:3])
                problems.append(f"{tag}: {len(items)} {label} (e.g. {sample})")
        for message, errors in catalog.check():
            problems.extend(f"{tag}: {message.id!r}: {err}" for err in errors)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"catalogues complete: {len(wanted)} messages in {len(LOCALES)} languages")
    return 1 if problems else 0


def fill_english() -> int:
    """en-GB: the English source text is its own translation; message keys are written by hand."""
    path = catalogue_path("en-GB")
    with path.open("rb") as fh:
        catalog = read_po(fh)
    filled = 0
    for message in catalog:
        if message.id and not message.string and isinstance(message.id, str):
            if not is_message_key(message.id):
                message.string, filled = message.id, filled + 1
        elif message.id and isinstance(message.id, tuple) and not all(message.string):
            message.string, filled = tuple(message.id), filled + 1
    with path.open("wb") as fh:
        write_po(fh, catalog, width=100)
    print(f"en-GB: {filled} messages filled from their English source text")
    return 0


if __name__ == "__main__":
    sys.exit(fill_english() if "--fill-english" in sys.argv else main())
