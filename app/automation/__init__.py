"""The event engine: what happens in the product (app/core/happenings.py) turned into actions:
e-mails by the event rules of the admin screen, and signed webhooks to the endpoints that
subscribe to the event, sent by jobs with retries, a delivery log and "send again" (its admin
screens: app/admin/webhooks.py)."""
