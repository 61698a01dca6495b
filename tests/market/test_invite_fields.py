"""The accept-invite call refuses each field with the key the invitation page shows (issue 16
part 8): one table (app/market/invite_fields.json) says which key each refusal of each field
gets; the call applies it and the page's script is given it (and applies it the same way,
islands/tests/market-invite.test.mjs)."""

import json
import re

import pytest

from app.market.invite_answer import CHOICES, INVITE_FIELDS
from tests.helpers import translated
from tests.market._invite import PASSWORD, accept_payload, counts, make_invite
from tests.market.test_invites import _fresh_rate_limit, put, reload  # noqa: F401

# A value of the wrong form for each check, as a person could type it.
WRONG_FORM = {
    "email": "someone@",
    "phone": "070 ABC",
    "password": "abcdefg1",  # no special character
    "repeat": "Other-pass-2",
    "country": "US",
    "currency": "USD",
    "language": "de-DE",
}


def refusal(demo_app, demo_client, path, value, **extra):
    """The accept call's answer to a payload with one field changed: (status, keys, errors)."""
    invite = make_invite(demo_app)
    changes = {path: value, **extra}
    if path == "user.plainPassword.first" and "user.plainPassword.second" not in extra:
        changes["user.plainPassword.second"] = value
    before = counts()
    response = put(
        demo_client, invite.hash, "accept-invite", accept_payload(invite.email, **changes)
    )
    data = response.get_json()
    if response.status_code == 422:
        assert counts() == before, "nothing is made"
        assert reload(invite).accepted_at is None
    return response.status_code, data.get("keys"), data.get("errors")


def cases():
    for field in INVITE_FIELDS:
        if field.required:
            yield pytest.param(field, "", field.required, id=f"{field.path}-empty")
        if field.max_length:
            yield pytest.param(
                field, "a1!" + "x" * field.max_length, field.too_long, id=f"{field.path}-long"
            )
        if field.check:
            yield pytest.param(
                field, WRONG_FORM[field.check], field.refused, id=f"{field.path}-form"
            )
        # What no form sends: another type than text, or a NUL inside.
        yield pytest.param(field, 1234567, field.refused, id=f"{field.path}-number")
        yield pytest.param(field, "abc\x00de1!", field.refused, id=f"{field.path}-nul")


@pytest.mark.parametrize(("field", "value", "key"), list(cases()))
def test_each_field_is_refused_with_the_key_of_the_table(demo_app, demo_client, field, value, key):
    status, keys, errors = refusal(demo_app, demo_client, field.path, value)
    assert status == 422
    assert keys[field.path] == key
    params = {"max": field.max_length} if key == "FIELD_TOO_LONG" else {}
    assert errors[field.path] == translated(demo_app, key, "sv_SE", **params)


@pytest.mark.parametrize(
    "weak",
    ["abc12!", "abcdefg!", "ABCDEF1!", "abcdef12", "a1!" + "x" * 126, 1234567, "abc\x00def1!"],
    ids=["short", "no-digit", "no-lowercase", "no-special", "129-characters", "number", "nul"],
)
def test_a_weak_password_is_password_pattern(demo_app, demo_client, weak):
    status, keys, _errors = refusal(
        demo_app, demo_client, "user.plainPassword.first", weak,
        **{"user.plainPassword.second": PASSWORD},
    )  # fmt: skip
    assert status == 422
    assert keys["user.plainPassword.first"] == "PASSWORD_PATTERN"


def test_a_long_but_valid_value_is_accepted(demo_app, demo_client):
    status, keys, _ = refusal(demo_app, demo_client, "user.firstname", "x" * 100)
    assert status == 200, keys


def test_the_page_is_given_the_same_table(demo_app, demo_client):
    """The page's script reads its rules from the page: exactly the call's table."""
    invite = make_invite(demo_app)
    html = demo_client.get(f"/market-invite/{invite.hash}").get_data(as_text=True)
    props = json.loads(
        re.search(
            r'<script type="application/json" id="invite-form-props">(.*?)</script>', html, re.S
        ).group(1)
    )
    rules = {rule["path"]: rule for rule in props["form"]["rules"]}
    assert list(rules) == [field.path for field in INVITE_FIELDS]
    for field in INVITE_FIELDS:
        rule = rules[field.path]
        assert (rule["required"], rule["refused"], rule["tooLong"], rule["maxLength"]) == (
            field.required, field.refused, field.too_long, field.max_length,
        )  # fmt: skip
        assert rule["company"] == field.company
        if field.check in CHOICES:
            assert rule["choices"] == list(CHOICES[field.check])
    # Every key the page may show has its text on the page.
    shown = {key for f in INVITE_FIELDS for key in (f.required, f.refused, f.too_long) if key}
    texts = json.loads(
        re.search(
            r'<script type="application/json" id="page-texts">(.*?)</script>', html, re.S
        ).group(1)
    )["messages"]
    assert shown <= set(texts)
