"""The response store in Redis, for replicas of ``toolcall serve`` behind a load balancer.

Every replica pointed at the same Redis sees every response at once, so a conversation's next
turn may land on any of them. An entry is a hash (``owner``, ``response``, ``items``) that Redis
itself expires after ``ttl``. The size cap is kept by scripts that run atomically in Redis,
whichever replica calls them: an index of the entries by expiry time (a sorted set), their sizes
(a hash) and the total; a write past ``max_bytes`` evicts the entries that expire first (the
oldest) until it fits. Times are Redis's own clock, so replicas' clocks do not matter.

The scripts touch the entry keys they evict by name, which a standalone Redis (or its replicas)
allows and Redis Cluster does not.
"""

from __future__ import annotations

import hmac
from typing import Any

from .base import EntryTooLarge, StoredEntry

#: Seconds to connect to Redis, and to wait for an answer.
CONNECT_TIMEOUT = 2.0
ANSWER_TIMEOUT = 2.0

#: Lua: what every script shares. KEYS[1] the index, KEYS[2] the sizes, KEYS[3] the total;
#: ARGV[1] the prefix of entry keys. ``forget`` drops an id from the index and the total.
_COMMON = """
local index, sizes, total_key, prefix = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local function forget(id)
  local size = redis.call('HGET', sizes, id)
  if size then
    redis.call('HDEL', sizes, id)
    redis.call('DECRBY', total_key, size)
  end
  redis.call('ZREM', index, id)
  redis.call('DEL', prefix .. id)
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
"""

#: ARGV: prefix, id, owner, response, items, ttl (ms), max bytes, size. Returns the total.
_PUT = (
    _COMMON
    + """
local id, ttl, max_bytes, size = ARGV[2], tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
-- entries past their time (Redis expired their keys already) leave the index and the total
for _, old in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', now, 'LIMIT', 0, 1000)) do
  forget(old)
end
forget(id)
redis.call('HSET', prefix .. id, 'owner', ARGV[3], 'response', ARGV[4], 'items', ARGV[5])
redis.call('PEXPIRE', prefix .. id, ttl)
redis.call('ZADD', index, now + ttl, id)
redis.call('HSET', sizes, id, size)
local total = redis.call('INCRBY', total_key, size)
while total > max_bytes do
  local oldest = redis.call('ZRANGE', index, 0, 0)[1]
  if not oldest or oldest == id then break end
  forget(oldest)
  total = tonumber(redis.call('GET', total_key))
end
return total
"""
)

#: ARGV: prefix, id, owner. Returns 1 when the owner's entry was there and is gone.
_DELETE = (
    _COMMON
    + """
local id = ARGV[2]
local owner = redis.call('HGET', prefix .. id, 'owner')
if owner ~= ARGV[3] then return 0 end
forget(id)
return 1
"""
)


class RedisStore:
    backend = "redis"

    def __init__(
        self, url: str, *, ttl: float, max_bytes: int, prefix: str = "toolcall:responses:"
    ) -> None:
        import redis.asyncio as aioredis

        self.url = url
        self.ttl_ms = max(1, round(ttl * 1000))
        self.max_bytes = max_bytes
        self.prefix = prefix
        self._keys = [prefix + "index", prefix + "sizes", prefix + "total"]
        self._entry_prefix = prefix + "entry:"
        self._client: Any = aioredis.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT,
            socket_timeout=ANSWER_TIMEOUT,
        )
        self._put_script = self._client.register_script(_PUT)
        self._delete_script = self._client.register_script(_DELETE)

    async def put(self, response_id: str, owner: str, entry: StoredEntry) -> None:
        size = len(entry.response) + len(entry.items)
        if size > self.max_bytes:
            raise EntryTooLarge(f"{size} bytes, over the store's max_bytes ({self.max_bytes})")
        await self._put_script(
            keys=self._keys,
            args=[
                self._entry_prefix,
                response_id,
                owner,
                entry.response,
                entry.items,
                self.ttl_ms,
                self.max_bytes,
                size,
            ],
        )

    async def get(self, response_id: str, owner: str) -> StoredEntry | None:
        stored_owner, response, items = await self._client.hmget(
            self._entry_prefix + response_id, ["owner", "response", "items"]
        )
        if stored_owner is None or not hmac.compare_digest(stored_owner, owner.encode()):
            return None
        return StoredEntry(response, items)

    async def delete(self, response_id: str, owner: str) -> bool:
        gone = await self._delete_script(
            keys=self._keys, args=[self._entry_prefix, response_id, owner]
        )
        return bool(gone)

    async def aclose(self) -> None:
        await self._client.aclose()
