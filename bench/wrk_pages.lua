-- wrk script for bench/pages.py --client wrk: prints the 50th and 95th percentiles of the
-- latency; with BIDDERS set, each thread (one connection) is one bidder of that file.
--
-- BIDDERS: one line per bidder, "advert_id path cookie csrf_token first_amount". Each bidder
-- POSTs the next bid the last answer named (accepted: 201, or too low: 422 with nextBid), with
-- a new request key each time; the ids of its accepted bids go to the file BID_IDS, one
-- "advert_id bid_id" per line, for the check that every one is stored exactly once.

local bidders, threads, n = {}, {}, 0
if os.getenv("BIDDERS") then
  for line in io.lines(os.getenv("BIDDERS")) do
    local advert, path, cookie, token, amount = line:match("(%d+) (%S+) (%S+) (%S+) (%d+)")
    table.insert(bidders, {advert = advert, path = path, cookie = cookie, token = token,
                           amount = amount})
  end
end

function setup(thread)
  n = n + 1
  thread:set("number", n)
  if #bidders > 0 then
    local b = bidders[(n - 1) % #bidders + 1]
    thread:set("advert", b.advert)
    thread:set("bid_path", b.path)
    thread:set("headers", {["Cookie"] = b.cookie, ["X-CSRFToken"] = b.token,
                           ["Content-Type"] = "application/json"})
    thread:set("amount", b.amount)
  end
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(number * 7919 + os.time())
  ids, statuses = {}, {}
end

local function request_key()  -- 32 hex digits: one format of four random 28-bit numbers
  return string.format("%07x%07x%07x%07x%04x", math.random(0, 0xfffffff),
    math.random(0, 0xfffffff), math.random(0, 0xfffffff), math.random(0, 0xfffffff),
    math.random(0, 0xffff))
end

if #bidders > 0 then
  request = function()
    local body = '{"bid": ' .. amount .. ', "requestKey": "' .. request_key() .. '"}'
    return wrk.format("POST", bid_path, headers, body)
  end

  response = function(status, headers, body)
    local next_bid = body:match('"nextBid":%s*(%d+)')
    if next_bid then amount = next_bid end
    if status == 201 then
      table.insert(ids, advert .. " " .. body:match('"bid":%s*{[^}]-"id":%s*(%d+)'))
    end
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  io.write(string.format("p50 %d p95 %d\n", latency:percentile(50), latency:percentile(95)))
  if #bidders == 0 then return end
  local out = io.open(os.getenv("BID_IDS"), "a")
  local counts = {}
  for _, thread in ipairs(threads) do
    for _, line in ipairs(thread:get("ids")) do out:write(line, "\n") end
    for status, count in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + count
    end
  end
  out:close()
  for status, count in pairs(counts) do io.write(string.format("status %d %d\n", status, count)) end
end
