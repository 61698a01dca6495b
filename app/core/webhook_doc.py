"""The webhooks the product sends, as the API document (OpenAPI 3.1 `webhooks`) states them:
event name -> the body's schema, declared by the feature that sends them (app/automation)."""

from collections.abc import Callable

from pydantic import BaseModel

WEBHOOKS: dict[str, type[BaseModel]] = {}


def declare_webhook(event: str, body: type[BaseModel]) -> None:
    """Publish `event`'s webhook: a signed POST with `body`."""
    WEBHOOKS[event] = body


def webhooks_document(ref: Callable[[type[BaseModel], str], dict]) -> dict:
    """The document's `webhooks`; `ref` places a body's schema among its components."""
    return {
        event: {
            "post": {
                "summary": f"{event}: sent to the endpoints that subscribe to it",
                "operationId": f"webhook_{event.replace('.', '_')}",
                "description": "Signed: DealerCare-Signature: t=<unix time>,v1=<hex HMAC-SHA256"
                " of '<t>.<body>' with the endpoint's signing secret>; refuse a t more than five"
                " minutes old (a replay).",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": ref(body, "serialization")}},
                },
                "responses": {
                    "200": {"description": "Received (any 2xx); anything else is retried"}
                },
            }
        }
        for event, body in sorted(WEBHOOKS.items())
    }
