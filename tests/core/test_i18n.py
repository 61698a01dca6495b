"""Languages: which locale a request gets, the islands' catalogues, missing keys, the CI check."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po

from app.core import i18n_check
from app.core.i18n import LOCALES, catalogue_path, to_locale
from tests.factories import make_user
from tests.helpers import html_lang, page_text, sign_in


def heading(response) -> str:
    return re.search(r"<h1>([^<]*)</h1>", page_text(response)).group(1).strip()


def catalogue_text(tag: str, msgid: str) -> str:
    with catalogue_path(tag).open("rb") as fh:
        message = read_po(fh).get(msgid)
    return message.string if message is not None and not message.fuzzy else ""


# --- choosing the locale -----------------------------------------------------------------------


def test_a_german_browser_gets_a_german_login_page(client):
    response = client.get("/login", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
    assert html_lang(response) == "de-DE"
    assert response.headers["X-Cc-Language"] == "de-DE"


def test_the_german_login_page_is_written_in_german(client):
    """Fails until the de-DE catalogue is translated: the heading must not stay English."""
    german = catalogue_text("de-DE", "Log in")
    assert german and german != "Log in", "de-DE has no translation of the login heading yet"
    response = client.get("/login", headers={"Accept-Language": "de"})
    assert heading(response) == german


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("sv-SE,sv;q=0.9", "sv-SE"),
        ("nb", "nb-NO"),
        ("nn-NO", "nb-NO"),
        ("da", "da-DK"),
        ("fr-FR,nl;q=0.5", "nl-NL"),
        ("fr-FR", "en-GB"),
        ("en-US", "en-GB"),
        ("", "en-GB"),
    ],
)
def test_the_browsers_languages_pick_the_first_supported_locale(client, accept, expected):
    response = client.get("/login", headers={"Accept-Language": accept})
    assert html_lang(response) == expected
    assert response.headers["X-Cc-Language"] == expected


def test_a_language_asked_for_in_the_link_is_used_and_remembered(client):
    german = {"Accept-Language": "de-DE"}
    chosen = client.get("/login?lang=sv-SE", headers=german)
    assert html_lang(chosen) == "sv-SE"
    cookie = next(c for c in chosen.headers.getlist("Set-Cookie") if c.startswith("language="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=" in cookie
    later = client.get("/login", headers=german)
    assert html_lang(later) == "sv-SE"
    assert later.headers["X-Cc-Language"] == "sv-SE"
    assert html_lang(client.get("/error", headers=german)) == "sv-SE"


def test_an_unknown_language_in_the_link_is_ignored_and_not_remembered(client):
    response = client.get("/login?lang=xx-XX", headers={"Accept-Language": "fi"})
    assert html_lang(response) == "fi-FI"
    assert "language=" not in ";".join(response.headers.getlist("Set-Cookie"))


def test_the_language_switch_links_keep_to_the_seven_locales(client):
    html = client.get("/login").get_data(as_text=True)
    assert set(re.findall(r'href="\?lang=([^"]+)"', html)) == set(LOCALES)


def test_the_users_own_language_beats_the_browsers(client):
    user = make_user(options={"language": "nb-NO"})
    sign_in(client, user)
    response = client.get("/user", headers={"Accept-Language": "de-DE"})
    assert html_lang(response) == "nb-NO"
    assert client.get("/api/me", headers={"Accept-Language": "de"}).headers["X-Cc-Language"] == (
        "nb-NO"
    )


def test_a_users_short_stored_language_is_mapped(client):
    user = make_user(options={"language": "nn"})
    sign_in(client, user)
    assert html_lang(client.get("/user", headers={"Accept-Language": "de-DE"})) == "nb-NO"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("nb", "nb-NO"),
        ("nn", "nb-NO"),
        ("en", "en-GB"),
        ("sv_SE", "sv-SE"),
        ("sv-se", "sv-SE"),
        ("SV", "sv-SE"),
        ("de-AT", "de-DE"),
        ("en-US", "en-GB"),
        ("fi", "fi-FI"),
        ("da", "da-DK"),
        ("nl-BE", "nl-NL"),
        ("xx", None),
        ("fr-FR", None),
        ("", None),
        (None, None),
    ],
)
def test_to_locale_follows_the_spec_mapping(value, expected):
    assert to_locale(value) == expected


# --- the islands' catalogues and configuration ---------------------------------------------------


@pytest.mark.parametrize("language", [*LOCALES, "sv", "nb", "nn", "en", "de_DE"])
def test_the_islands_catalogue_is_served_for_every_locale(client, language):
    response = client.get(f"/assets/i18n/{language}.json", buffered=True)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    catalogue = response.get_json()
    assert isinstance(catalogue, dict)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in catalogue.items())


def test_the_english_catalogue_holds_the_specs_message_keys(client):
    catalogue = client.get("/assets/i18n/en-GB.json", buffered=True).get_json()
    for key in ("PASSWORD_PATTERN", "PASSWORDS_DOESNT_MATCH", "FORGOT_PASSWORD_EMAIL_SENT"):
        assert catalogue.get(key) and catalogue[key] != key


def test_the_short_code_serves_the_same_catalogue(client):
    assert client.get("/assets/i18n/nn.json", buffered=True).get_json() == (
        client.get("/assets/i18n/nb-NO.json", buffered=True).get_json()
    )


@pytest.mark.parametrize("language", ["xx", "fr-FR", "..", "zz-SE"])
def test_an_unknown_catalogue_is_404(client, language):
    response = client.get(f"/assets/i18n/{language}.json", buffered=True)
    assert response.status_code == 404
    assert response.is_json


def test_the_config_json_has_the_contracts_shape(client, app):
    response = client.get("/assets/config.json", headers={"Accept-Language": "da-DK"})
    assert response.status_code == 200
    data = response.get_json()
    assert set(data) == {"apiUrl", "language", "title"}
    assert data["apiUrl"] == "/api/"
    assert data["language"] == "da-DK"
    assert data["title"] == app.config["APP_TITLE"]
    assert client.get(data["apiUrl"] + "openapi.json").status_code == 200


# --- missing translations ------------------------------------------------------------------------


def test_a_missing_translation_shows_its_key(client):
    response = client.get("/error?message=NO_SUCH_THING")
    assert response.status_code == 200
    assert "ERROR.NO_SUCH_THING" in page_text(response)


def test_a_missing_translation_shows_its_key_in_every_language(client):
    for tag in LOCALES:
        response = client.get(f"/error/NO_SUCH_THING?lang={tag}")
        assert "ERROR.NO_SUCH_THING" in page_text(response), tag


# --- the catalogue check of CI -------------------------------------------------------------------


def _copy_sources(root: Path) -> None:
    """The parts of the project the extractor reads, so the check can run on a copy."""
    ignore = shutil.ignore_patterns("__pycache__", "node_modules")
    for name in ("app", "templates", "islands"):
        shutil.copytree(i18n_check.ROOT / name, root / name, ignore=ignore)
    shutil.copy(i18n_check.ROOT / "babel.cfg", root / "babel.cfg")
    (root / ".venv").symlink_to(i18n_check.ROOT / ".venv")


@pytest.fixture(scope="module")
def fresh_template(tmp_path_factory):
    """A copy of the project's sources with a freshly extracted template."""
    root = tmp_path_factory.mktemp("i18n") / "root"
    _copy_sources(root)
    pot = root / "translations" / "messages.pot"
    pot.parent.mkdir()
    subprocess.run(  # noqa: S603
        [str(root / ".venv/bin/pybabel"), "-q", "extract", "-F", "babel.cfg",
         "-k", "_l", "-k", "_k", "-o", str(pot), "."],
        check=True, cwd=root,
    )  # fmt: skip
    with pot.open("rb") as fh:
        return root, read_po(fh)


@pytest.fixture
def complete_catalogues(fresh_template, tmp_path, monkeypatch):
    """Every catalogue fully translated against the fresh template, and the check pointed at
    them (so these tests do not depend on the translators' progress)."""
    root, template = fresh_template
    paths = {}
    for tag in LOCALES:
        with catalogue_path(tag).open("rb") as fh:
            catalog = read_po(fh)
        catalog.update(template, no_fuzzy_matching=True)
        for message in catalog:
            if not message.id:
                continue
            message.flags.discard("fuzzy")
            if isinstance(message.id, tuple):
                forms = len(message.string) if isinstance(message.string, tuple) else 2
                message.string = tuple(message.id[min(i, 1)] for i in range(forms))
            elif not message.string:
                message.string = message.id
        catalog.obsolete.clear()
        paths[tag] = tmp_path / f"{tag}.po"
        with paths[tag].open("wb") as fh:
            write_po(fh, catalog)
    monkeypatch.setattr(i18n_check, "ROOT", root)
    monkeypatch.setattr(i18n_check, "catalogue_path", lambda tag: paths[tag])
    return paths


def test_the_catalogue_check_passes_on_complete_catalogues(complete_catalogues, capsys):
    assert i18n_check.main() == 0, capsys.readouterr().err
    assert "catalogues complete" in capsys.readouterr().out


def test_the_catalogue_check_names_a_stale_template(complete_catalogues, capsys):
    source = i18n_check.ROOT / "app" / "core" / "messages.py"
    original = source.read_text()
    source.write_text(original + '\n_k("A_BRAND_NEW_KEY")\n')
    try:
        assert i18n_check.main() == 1
    finally:
        source.write_text(original)
    err = capsys.readouterr().err
    assert "messages.pot is stale (1 new, 0 gone)" in err
    assert "A_BRAND_NEW_KEY" in err  # each locale misses it


def test_the_catalogue_check_names_an_untranslated_message(complete_catalogues, capsys):
    path = complete_catalogues["nl-NL"]
    with path.open("rb") as fh:
        catalog = read_po(fh)
    catalog["PASSWORD_PATTERN"].string = ""
    with path.open("wb") as fh:
        write_po(fh, catalog)
    assert i18n_check.main() == 1
    err = capsys.readouterr().err
    assert "nl-NL: 1 untranslated" in err
    assert "PASSWORD_PATTERN" in err


def test_the_catalogue_check_names_a_fuzzy_message(complete_catalogues, capsys):
    path = complete_catalogues["fi-FI"]
    with path.open("rb") as fh:
        catalog = read_po(fh)
    catalog["PASSWORD_CHANGED"].flags.add("fuzzy")
    with path.open("wb") as fh:
        write_po(fh, catalog)
    assert i18n_check.main() == 1
    assert "fi-FI: 1 fuzzy" in capsys.readouterr().err
