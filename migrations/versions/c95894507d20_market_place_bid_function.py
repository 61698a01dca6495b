"""PostgreSQL: a bid without a maximum as one function call (market_place_bid)

The statement that app.market.bidding sent for each bid (lock the advert, check the bidder's
remembered link, insert the bid, update the advert, read who lost the lead) becomes the body of
a PL/pgSQL function. Measured under load (bench/PAGES.md, round 5): parsing and planning that
statement was half of PostgreSQL's CPU per bid, because psycopg forgets its prepared statements
at every ROLLBACK (and every read-only request ends in one); a function's plan is kept by the
server for the connection's life. The function also answers a refused bid's double-tap question
(the earlier bid of this request key) in the same round trip: its second statement takes its
snapshot after the first one's lock, so it sees the bid that the lock waited for.

SQLite has no functions of this kind: there the bid stays as Python's statements.

Revision ID: c95894507d20
Revises: 98ad42106af0
Create Date: 2026-11-26 23:40:00.000000

"""
from alembic import op

# revision identifiers, used by Alembic.
revision = 'c95894507d20'
down_revision = '98ad42106af0'
branch_labels = None
depends_on = None

# plan_cache_mode: the generic plan (its ids are parameters, each a primary or unique key), so
# the server plans the body once per connection instead of once per bid.
PLACE_BID = """
CREATE OR REPLACE FUNCTION market_place_bid(
  p_advert_id integer, p_advert_currency varchar, p_link_id integer, p_group_id integer,
  p_currency varchar, p_instance_id integer, p_link_rate numeric, p_now timestamptz,
  p_advert_amount integer, p_user_id integer, p_request_key varchar, p_amount integer,
  p_rate numeric)
RETURNS TABLE (
  status varchar, ends_at timestamptz, start_price integer, bid_step integer,
  highest_bid integer, highest_group_id integer, proxy_bidding boolean,
  soft_close_seconds integer, buy_now_price integer, maxima_count integer, link_ok boolean,
  bid_id integer, new_ends_at timestamptz,
  lost_link integer, lost_amount integer, lost_currency varchar, lost_mailed boolean,
  earlier_id integer, earlier_amount integer, earlier_currency varchar,
  earlier_advert_amount integer, earlier_created_at timestamptz)
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $body$
#variable_conflict use_column
BEGIN
  -- The advert's row locked; the remembered link's facts checked (the advert's and the
  -- group's currency, the rate between them, the link itself); the bid inserted and the
  -- advert updated when it is a bid without maxima that tops the highest; who led until now.
  WITH a AS (
    SELECT advert.id, advert.status, advert.ends_at, advert.start_price, advert.bid_step,
           advert.highest_bid, advert.highest_group_id, advert.proxy_bidding,
           advert.soft_close_seconds, advert.buy_now_price, advert.maxima_count,
           advert.currency
    FROM advert WHERE advert.id = p_advert_id FOR UPDATE
  ), facts AS (
    SELECT a.currency = p_advert_currency
           AND EXISTS (SELECT 1 FROM market_link WHERE market_link.id = p_link_id)
           AND (SELECT g.currency FROM instance_group g WHERE g.id = p_group_id) = p_currency
           AND (SELECT r.rate FROM exchange_rate r WHERE r.instance_id = p_instance_id
                  AND r.currency = p_advert_currency AND r.to_currency = p_currency)
               IS NOT DISTINCT FROM p_link_rate AS ok
    FROM a
  ), ok AS (
    SELECT a.id, a.soft_close_seconds FROM a, facts
    WHERE facts.ok
      AND a.status = 'published' AND a.ends_at > p_now
      AND NOT (a.proxy_bidding AND a.maxima_count > 0)
      AND p_advert_amount >= COALESCE(a.highest_bid + a.bid_step, a.start_price)
  ), b AS (
    INSERT INTO advert_bid (instance_id, advert_id, group_id, user_id, link_id, request_key,
                            amount, currency, advert_amount, created_at, rate, automatic,
                            buy_now)
    SELECT p_instance_id, ok.id, p_group_id, p_user_id, p_link_id, p_request_key, p_amount,
           p_currency, p_advert_amount, p_now, p_rate, false, false
    FROM ok
    RETURNING advert_bid.id
  ), u AS (
    UPDATE advert SET highest_bid = p_advert_amount, highest_group_id = p_group_id,
           bid_count = advert.bid_count + 1, modified_at = p_now,
           ends_at = CASE WHEN ok.soft_close_seconds > 0
                           AND advert.ends_at < p_now + make_interval(secs => ok.soft_close_seconds)
                          THEN p_now + make_interval(secs => ok.soft_close_seconds)
                          ELSE advert.ends_at END
    FROM ok WHERE advert.id = p_advert_id AND advert.id = ok.id  -- the key: an index scan
    RETURNING advert.ends_at
  ), lost AS (
    SELECT bid.link_id, bid.amount, bid.currency,
           link.kind = 'bid' AND link.unsubscribed_at IS NULL AS mailed
    FROM a JOIN advert_bid bid ON bid.advert_id = a.id AND bid.advert_amount = a.highest_bid
                              AND bid.group_id = a.highest_group_id
    JOIN market_link link ON link.id = bid.link_id
    WHERE a.highest_group_id <> p_group_id
    ORDER BY bid.id DESC LIMIT 1
  )
  SELECT a.status, a.ends_at, a.start_price, a.bid_step, a.highest_bid, a.highest_group_id,
         a.proxy_bidding, a.soft_close_seconds, a.buy_now_price, a.maxima_count,
         (SELECT facts.ok FROM facts), (SELECT b.id FROM b), (SELECT u.ends_at FROM u),
         lost.link_id, lost.amount, lost.currency, lost.mailed
  INTO status, ends_at, start_price, bid_step, highest_bid, highest_group_id, proxy_bidding,
       soft_close_seconds, buy_now_price, maxima_count, link_ok, bid_id, new_ends_at,
       lost_link, lost_amount, lost_currency, lost_mailed
  FROM a LEFT JOIN lost ON true;
  IF NOT FOUND THEN
    RETURN;  -- no such advert: no row
  END IF;
  IF bid_id IS NULL AND link_ok THEN
    -- Refused (or left to the maxima): a double tap's first tap, if any. A statement of its
    -- own, so its snapshot (read committed) is taken after the lock above was granted.
    SELECT bid.id, bid.amount, bid.currency, bid.advert_amount, bid.created_at
    INTO earlier_id, earlier_amount, earlier_currency, earlier_advert_amount,
         earlier_created_at
    FROM advert_bid bid WHERE bid.link_id = p_link_id AND bid.request_key = p_request_key;
  END IF;
  RETURN NEXT;
END
$body$
"""


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PLACE_BID)


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "DROP FUNCTION IF EXISTS market_place_bid(integer, varchar, integer, integer, "
            "varchar, integer, numeric, timestamptz, integer, integer, varchar, integer, numeric)"
        )
