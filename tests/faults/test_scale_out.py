"""Scale-out gate: two gunicorn nodes on one address (SO_REUSEPORT) and one RQ worker against
one PostgreSQL and one Redis; whatever a person does on one node holds on the other."""

import pytest

from tests import processes
from tests.faults import scale, servers

LIMIT = 8


@pytest.fixture(scope="module")
def cluster(stack):
    stack.ensure_up()
    env = stack.env(PUBLIC_RATE_LIMIT=f"{LIMIT}/3600")
    own = {"node-a": processes.free_port(), "node-b": processes.free_port()}
    shared = processes.free_port()
    started = []
    try:
        for name, port in own.items():
            started.append(
                servers.gunicorn_node(name, [port, shared], env, stack.log_dir, reuse_port=True)
            )
        started.append(stack.worker("scale-worker"))
        yield scale.Cluster(own, shared, stack)
    finally:
        servers.Process.stop_all(started)


def test_one_address_reaches_every_node(cluster):
    scale.check_one_address_reaches_every_node(cluster)


def test_a_session_holds_on_every_node_and_ends_on_every_node(cluster):
    scale.check_sessions_hold_across_nodes(cluster)


def test_the_public_rate_limit_counts_every_nodes_requests(cluster):
    redis = __import__("redis").Redis.from_url(cluster.stack.redis.url)
    for key in redis.scan_iter("rl:*"):
        redis.delete(key)
    redis.close()
    scale.check_rate_limit_is_shared(cluster, LIMIT)


def test_files_and_caches_hold_across_nodes(cluster):
    item_id = cluster.stack.scalar("SELECT id FROM preparation_item WHERE regno = 'FLT001'")
    scale.check_files_and_caches_hold_across_nodes(cluster, item_id, scale.PDF)


def test_a_job_queued_on_any_node_runs_once(cluster):
    def mails():
        rows = cluster.stack.pg.execute(
            "SELECT count(*) FILTER (WHERE status = 'stored'), "
            "count(*) FILTER (WHERE status = 'queued') FROM email_message WHERE to_address = %s",
            (servers.SELLER,),
        )
        return rows[0]

    scale.check_jobs_run_once_from_any_node(cluster, mails)
