"""The demo data's providers: one of each kind, pointed at the demo provider on this machine
(`flask --app wsgi demo-provider`, app/providers/stub.py; README "Data providers")."""

from app.core.settings import SettingRow
from app.providers.services import ROW_KIND
from app.providers.stub import API_KEY, PORT

BASE = f"http://127.0.0.1:{PORT}"


def demo_providers() -> list[SettingRow]:
    """A vehicle data and a valuation provider (not saved: the caller adds them)."""
    common = {"auth_header": "X-Api-Key", "auth_value": API_KEY, "timeout": 5, "cache_minutes": 60}
    return [
        SettingRow(kind=ROW_KIND, name="Demo: fordonsdata", data={
            **common, "kind": "vehicle", "url": f"{BASE}/vehicle?regno={{regno}}&vin={{vin}}",
            "mapping": {"brand": "vehicle.make", "model": "vehicle.model", "model_year": "vehicle.year",
                        "fuel_type": "vehicle.fuel", "color": "vehicle.colour"},
        }),
        SettingRow(kind=ROW_KIND, name="Demo: värdering", data={
            **common, "kind": "valuation",
            "url": f"{BASE}/valuation?brand={{brand}}&model={{model}}&year={{year}}&mileage={{mileage}}",
            "mapping": {"price_min": "prices.low", "price_max": "prices.high", "price_avg": "prices.average"},
        }),
    ]  # fmt: skip
