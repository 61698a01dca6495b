"""The role catalogue: every role an instance or the platform grants has an area, a name and a
line on what it allows, in every language; presets grant only roles that exist."""

import re

import pytest
from flask_babel import force_locale

from app.admin.role_catalogue import AREAS, PRESETS, WRITTEN, by_area, describe
from app.auth import privileges as P
from app.core import roles as R
from app.core.i18n import LOCALES

EVERY_ROLE = (*P.INSTANCE_ROLES, *sorted(R.PLATFORM_ROLES))
CODE = re.compile(r"\b(ROLE|IS)_[A-Z_]+\b")


@pytest.mark.parametrize("code", EVERY_ROLE)
def test_every_role_has_an_entry_with_a_readable_name_and_description(app, code):
    with app.test_request_context(), force_locale("en_GB"):
        info = describe(code)
        assert info is not None, f"{code} has no entry in app/admin/role_catalogue.py"
        assert info.area in dict(AREAS)
        assert info.name and info.description and not CODE.search(info.name + info.description)


def test_an_unknown_role_has_no_entry(app):
    with app.test_request_context():
        assert describe("ROLE_NOBODY_KNOWS") is None


def test_names_are_unique_within_an_area(app):
    with app.test_request_context():
        for _key, _title, infos in by_area(EVERY_ROLE):
            names = [i.name for i in infos]
            assert len(names) == len(set(names)), names


@pytest.mark.parametrize("locale", [t.replace("-", "_") for t in LOCALES if t != "en-GB"])
def test_names_and_descriptions_are_translated(app, locale):
    """Every language reads its own words (the written roles and the admin screens' pattern)."""
    with app.test_request_context():
        with force_locale("en_GB"):
            english = {c: describe(c) for c in EVERY_ROLE}
        with force_locale(locale):
            local = {c: describe(c) for c in EVERY_ROLE}
    for code in (*WRITTEN, R.tenant_read("COUNTRY"), R.module_read("begcare", "STATES")):
        assert local[code].description != english[code].description, (locale, code)
    for code in (R.tenant_read("COUNTRY"), R.module_read("begcare", "STATES")):
        assert local[code].name != english[code].name, (locale, code)


def test_presets_grant_only_roles_an_instance_grants():
    for preset in PRESETS:
        assert set(preset.roles) <= set(P.INSTANCE_ROLES), preset.key
