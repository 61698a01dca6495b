"""The fuzzing gate's own checks, loaded by schemathesis (tests/gates/schemathesis.toml).

A refused value (422) has the error shape of spec 01 section 8 (a `message` to show) and, for a
body or query the call reads field by field, names each refused field in `errors` and `keys`
(the spec's message keys), so that an API client can put the message under its field.
"""

import schemathesis

# Calls whose 422 is a business answer about the resource, not a refused field (spec 02 section
# 8: the seen-marker calls answer 422 with the error text and the marker's id).
BUSINESS_422 = {
    "preparation_api_create_seen",
    "preparation_api_delete_seen",
}


@schemathesis.check
def refusal_names_the_field(ctx, response, case):
    """A 422 carries `message`; one refusing a JSON object body or query parameters names the
    refused fields in `errors` and `keys`, with the same fields in both."""
    if response.status_code != 422:
        return None
    try:
        data = response.json()
    except ValueError:
        raise AssertionError("A 422 answer is not JSON") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("message"), str)
        or not data["message"]
    ):
        raise AssertionError(f"A 422 answer has no message to show: {data!r}")
    if case.operation.definition.raw.get("operationId") in BUSINESS_422:
        return None
    reads_fields = isinstance(case.body, dict) or bool(case.query)
    if not reads_fields:
        return None
    errors, keys = data.get("errors"), data.get("keys")
    if not isinstance(errors, dict) or not errors:
        raise AssertionError(f"A 422 refusing a value does not name the field: {data!r}")
    if not isinstance(keys, dict) or set(keys) != set(errors):
        raise AssertionError(f"A 422's message keys do not match its fields: {data!r}")
    return None
