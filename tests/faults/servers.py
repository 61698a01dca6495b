"""Private, real servers for the fault and scale-out gates: a Redis and a PostgreSQL cluster of
their own (on ports chosen free when they start, in a temporary folder), gunicorn nodes and RQ
workers, each in a process group of its own and recorded by tests/processes.py until stopped
(so an interrupted or killed run leaves none behind for long).

The shared PostgreSQL and Redis that other test runs use are never stopped: only these private
ones are, which is what the fault tests do to them. Used by tests/faults and bench/scale_out.py.
"""

import glob
import http.client
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from urllib.parse import urlencode

from tests import processes

ROOT = Path(__file__).resolve().parent.parent.parent
PASSWORD = "demo-pass-1"
SELLER, ADMIN = "seller@faults.test", "admin@faults.test"


# How long a state that never comes is waited for before the gate fails. A busy machine (two
# cores shared with other runs) can take minutes to start a server or run a job; a wait ends as
# soon as its state holds, so a long bound costs nothing when all is well.
STATE_SECONDS = 300


def wait_for(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with suppress(Exception):
            if check():
                return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not come up within {seconds:g} s")


def postgres_bin() -> Path | None:
    """Debian's PostgreSQL binaries (the newest installed), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_version)
    return Path(found[-1]).parent if found else None


def _version(path: str) -> tuple:
    return tuple(int(p) for p in re.findall(r"\d+", path))


def missing() -> str | None:
    """Why the private servers cannot be started here, or None."""
    if not shutil.which("redis-server"):
        return "redis-server is not installed (apt-get install redis-server)"
    if postgres_bin() is None:
        return "PostgreSQL's server binaries are not installed (apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "there is no `postgres` user to run a private PostgreSQL as"
    return None


class PrivateRedis:
    """redis-server on its own port, persisting every write to its append-only file (as a
    production Redis for RQ must: README, "Scale-out"); stop() and start() at will."""

    def __init__(self, folder: Path, port: int | None = None):
        self.port = port or processes.free_port()
        self.folder = folder
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self.marker: Path | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(  # noqa: S603
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.folder),
             "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        self.marker = processes.record("redis", self.proc.pid)
        try:
            wait_for(self.ping, STATE_SECONDS, f"redis-server on port {self.port}")
        except BaseException:
            self.stop()
            raise

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ping(self) -> bool:
        from redis import Redis

        client = Redis(port=self.port, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        finally:
            client.close()

    def stop(self) -> None:
        """Stop the server outright (SIGKILL): an outage, not a tidy shutdown."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=60)
        self.proc = None
        processes.forget(self.marker)


class PrivatePostgres:
    """A PostgreSQL cluster of its own in a temporary folder, run as the `postgres` user when
    we are root (initdb refuses root). Trust authentication on 127.0.0.1 only."""

    def __init__(self, port: int | None = None):
        self.port = port or processes.free_port()
        self.bin = postgres_bin()
        self.base = Path(tempfile.mkdtemp(prefix=f"dc-pg-{self.port}-"))
        self.data = self.base / "data"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/dealercare"
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.marker: Path | None = None

    def _run(self, *args: str, **kwargs) -> None:
        subprocess.run([*self.as_postgres, *args], check=True, capture_output=True, **kwargs)  # noqa: S603

    def owned(self, path: Path) -> Path:
        """A folder the server may write (for a tablespace)."""
        path.mkdir(parents=True, exist_ok=True)
        if self.as_postgres:
            shutil.chown(path, "postgres", "postgres")
        return path

    def start(self) -> None:
        if not self.data.exists():
            self.base.chmod(0o755)
            self.owned(self.base)
            self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                      "--auth=trust", "-E", "UTF8", "--no-instructions")  # fmt: skip
        options = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c synchronous_commit=off -c max_connections=60"
        )
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options,
                      "-l", str(self.base / "log"), "-w", "-t", "120", "start")  # fmt: skip
        finally:
            self._record()
        self.execute("SELECT 1", database="postgres")
        if not self.execute(
            "SELECT 1 FROM pg_database WHERE datname = 'dealercare'", database="postgres"
        ):
            self.execute("CREATE DATABASE dealercare", database="postgres")

    def restart(self) -> None:
        """A fast restart: every open connection is cut, as after a failover or an upgrade."""
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w",
                      "-t", "120", "-l", str(self.base / "log"), "restart")  # fmt: skip
        finally:
            self._record()

    def _record(self) -> None:
        """Record the postmaster (pg_ctl makes it a process group leader of its own) and the
        cluster's folder, which a later run removes if this one is killed."""
        processes.forget(self.marker)
        self.marker = None
        with suppress(OSError, ValueError, IndexError):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            self.marker = processes.record("postgres", pid, [self.base], stop=signal.SIGQUIT)
        if self.marker is None:  # no server: the folder is still ours to remove
            self.marker = processes.record("postgres-folder", 0, [self.base])

    def stop(self) -> None:
        with suppress(subprocess.CalledProcessError):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)
        processes.forget(self.marker)
        self.marker = None

    def execute(self, sql: str, params: tuple = (), database: str = "dealercare"):
        """Run one statement in autocommit; return its rows (or None)."""
        import psycopg

        with psycopg.connect(self.dsn(database), autocommit=True) as conn:
            cur = conn.execute(sql, params)  # type: ignore[arg-type]
            return cur.fetchall() if cur.description else None

    def dsn(self, database: str = "dealercare") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={database}"


def sqlalchemy_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def demo_hash() -> str:
    """The password hash of PASSWORD (computed once)."""
    global _HASH
    if _HASH is None:
        from app.auth.services import hash_password

        _HASH = hash_password(PASSWORD)
    return _HASH


_HASH = None


def seed(url: str, secret_key: str):
    """Migrate the private database and add one company with a seller, an administrator and
    a vehicle (much faster than the demo data)."""
    from flask_migrate import upgrade
    from sqlalchemy import select

    from app import create_app
    from app.auth.models import MODULES
    from app.core import roles
    from app.core.models import Division
    from app.core.tenancy import activate
    from app.extensions import db
    from app.preparation.models import PreparationItem
    from app.preparation.services import add_item
    from tests.factories import make_instance, make_user

    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": sqlalchemy_url(url), "SECRET_KEY": secret_key,
         "REDIS_URL": None, "TESTING": False}
    )  # fmt: skip
    with app.app_context():
        upgrade()
        instance = make_instance("Faults AB", divisions=2)
        make_user(
            instance, email=SELLER, password_hash=demo_hash(), firstname="Sara",
            lastname="Faultless",
            roles=["ROLE_USER", roles.add_vehicle("begcare")], modules=list(MODULES),
            all_divisions=True,
        )  # fmt: skip
        make_user(
            instance, email=ADMIN, password_hash=demo_hash(),
            roles=["ROLE_USER", roles.ROLE_ADMIN, *roles.ALL_TENANT_ROLES],
            modules=list(MODULES), all_divisions=True,
        )  # fmt: skip
        activate(instance.id)
        division = db.session.scalars(select(Division).order_by(Division.id)).first()
        add_item(
            PreparationItem(
                instance_id=instance.id, module="begcare", division_id=division.id, state=2,
                regno="FLT001", brand="Volvo", model="V60",
            )
        )  # fmt: skip
        db.session.commit()
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()
    return app


def app_env(database_url: str, redis_url: str | None, secret_key: str, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env |= {"DATABASE_URL": database_url, "SECRET_KEY": secret_key, "PYTHONUNBUFFERED": "1"}
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env | {k: str(v) for k, v in extra.items()}


class Process:
    """A server process of ours in its own process group (so that a kill reaches its children),
    recorded (tests/processes.py) until it is stopped."""

    def __init__(self, cmd: list[str], env: dict, log: Path, kind: str = "server"):
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(  # noqa: S603
                cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.marker = processes.record(kind, self.proc.pid)

    def signal(self, sig: int) -> None:
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.proc.wait(timeout=30)
        self.signal(signal.SIGKILL)  # whatever of its group outlived it
        processes.forget(self.marker)

    @staticmethod
    def stop_all(processes) -> None:
        """Stop several at once (each stops gracefully, in parallel)."""
        for proc in processes:
            if proc.proc.poll() is None:
                proc.signal(signal.SIGTERM)
        for proc in processes:
            proc.stop()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def gunicorn_node(
    name: str, ports: list[int], env: dict, log_dir: Path, workers: int = 1, reuse_port=False
) -> Process:
    """One gunicorn master (a 'node') bound to every port given; it names itself in X-Cc-Node.
    A node that does not come up is stopped before the error is raised."""
    cmd = [str(ROOT / ".venv/bin/gunicorn"), "--workers", str(workers), "--worker-class", "sync",
           "--log-level", "warning", "--timeout", "60"]  # fmt: skip
    if reuse_port:
        cmd.append("--reuse-port")
    for port in ports:
        cmd += ["--bind", f"127.0.0.1:{port}"]
    proc = Process(
        [*cmd, "wsgi:app"], env | {"NODE_NAME": name}, log_dir / f"{name}.log", "gunicorn"
    )
    try:
        wait_for(lambda: get(ports[0], "/login")[0] == 200, STATE_SECONDS, f"gunicorn node {name}")
    except BaseException:
        proc.stop()
        raise
    return proc


def rq_worker(name: str, env: dict, log_dir: Path) -> Process:
    return Process(
        [str(ROOT / ".venv/bin/flask"), "--app", "wsgi", "worker"],
        env,
        log_dir / f"{name}.log",
        "rq-worker",
    )


# --- a small HTTP client (a browser's cookie jar for one site) --------------------------------


def request(
    port: int, method: str, path: str, body=None, headers=None, timeout: float = 30, source=None
) -> tuple[int, dict, str]:
    """One request on a new connection (from the loopback address `source`, if given)."""
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source else None
    )
    try:
        conn.request(method, path, body, headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read().decode(errors="replace")
    finally:
        conn.close()


def get(port: int, path: str, cookie: str | None = None) -> tuple[int, dict, str]:
    return request(port, "GET", path, headers={"Cookie": cookie} if cookie else {})


def csrf_of(html: str) -> str:
    return re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)


def sign_in(port: int, email: str, password: str = PASSWORD) -> str:
    """Sign in through the login form on `port`; return the session cookie."""
    status, headers, html = get(port, "/login")
    cookie = headers["Set-Cookie"].split(";", 1)[0]
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    body = urlencode({"email": email, "password": password, "csrf_token": token})
    status, headers, _ = request(
        port, "POST", "/login", body,
        {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
    )  # fmt: skip
    assert status == 302, f"sign-in on port {port} answered {status}"
    return headers["Set-Cookie"].split(";", 1)[0]


def multipart(fields: dict, files: dict) -> tuple[bytes, str]:
    """A multipart/form-data body: fields {name: value}, files {name: (filename, bytes, type)}."""
    boundary = "----dc-faults-boundary"
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        )
    for name, (filename, data, content_type) in files.items():
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: {content_type}\r\n\r\n'
        )
        parts.append(head.encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"
