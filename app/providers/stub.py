"""A demo provider to run beside the application (`flask --app wsgi demo-provider`, README):
answers vehicle data and valuations as JSON on 127.0.0.1, the same answer for the same
question, so the demo data's providers show the add-vehicle fetch and "Get valuation" working.

  GET /vehicle?regno=ABC123   {"vehicle": {"make", "model", "year", "fuel", "colour"}}
  GET /valuation?brand=&model=&year=&mileage=   {"prices": {"low", "high", "average"}}

A registration number starting with NOTFOUND answers 404; a request without the demo key
(X-Api-Key: demo-key) answers 401."""

import hashlib
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import click

API_KEY = "demo-key"
PORT = 8002
VEHICLES = (
    ("Volvo", "XC60", "Diesel", "Svart"),
    ("Volkswagen", "Golf", "Petrol", "Vit"),
    ("Toyota", "RAV4", "Hybrid", "Silver"),
    ("Tesla", "Model 3", "Electric", "Blå"),
    ("Kia", "Niro", "Plug-in hybrid", "Grå"),
)


def _pick(text: str) -> int:
    return int(hashlib.sha256(text.upper().encode()).hexdigest(), 16)


def vehicle(regno: str) -> dict:
    """The demo vehicle a registration number (or VIN) names: always the same one."""
    n = _pick(regno)
    make, model, fuel, colour = VEHICLES[n % len(VEHICLES)]
    return {"vehicle": {"make": make, "model": model, "year": 2016 + n % 8, "fuel": fuel,
                        "colour": colour}, "regno": regno.upper()}  # fmt: skip


def valuation(brand: str, model: str, year: str, mileage: str) -> dict:
    """A demo valuation: a price from the model and year, lowered by the mileage."""
    base = 150_000 + _pick(f"{brand}|{model}") % 200_000
    age = max(0, 2025 - int(year)) if year.isdigit() else 5
    km = int(mileage) if mileage.isdigit() else 60_000
    average = max(20_000, base - age * 12_000 - km // 10)
    return {"prices": {"low": round(average * 0.93, -2), "high": round(average * 1.07, -2),
                       "average": round(average, -2)}, "currency": "SEK"}  # fmt: skip


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if self.headers.get("X-Api-Key") != API_KEY:
            return self._send(401, {"error": "missing or wrong X-Api-Key"})
        if parts.path == "/vehicle":
            wanted = query.get("regno") or query.get("vin") or ""
            if not wanted or wanted.upper().startswith("NOTFOUND"):
                return self._send(404, {"error": "no such vehicle"})
            return self._send(200, vehicle(wanted))
        if parts.path == "/valuation":
            args = (query.get(k, "") for k in ("brand", "model", "year", "mileage"))
            return self._send(200, valuation(*args))
        return self._send(404, {"error": "unknown path"})

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args) -> None:  # noqa: A002 - http.server's signature
        click.echo(f"demo-provider: {format % args}")


def server(port: int = PORT) -> ThreadingHTTPServer:
    """The demo provider on 127.0.0.1 (port 0: a free one), not started yet."""
    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def register_cli(app) -> None:
    @app.cli.command("demo-provider")
    @click.option("--port", default=PORT, show_default=True, help="Port on 127.0.0.1.")
    def demo_provider(port: int) -> None:
        """Serve the demo vehicle data and valuation provider (README, "Data providers")."""
        httpd = server(port)
        click.echo(f"Demo provider on http://127.0.0.1:{port}/ (Ctrl+C stops it)")
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            httpd.server_close()
