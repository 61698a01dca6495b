"""The administration area (spec 01 sections 2 and 6): every admin screen on one declarative
list/edit mechanism (app.admin.crud), the first administrator's command, the vehicle import.
The blueprint lives in app.admin.routes (imported when the blueprints are registered)."""
