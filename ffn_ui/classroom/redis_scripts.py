"""The Lua scripts of the Redis room store (ffn_ui/classroom/redis_store.py): each change to
a room is one script, so that several server processes never half-apply one.
"""

# Redis. A room's keys start with ffn:room:<code>: the room itself (a hash: the teacher's
# key, their address, the version, the view and the revealed questions as JSON), the
# students present (a sorted set by when each last polled, and one of those who follow),
# its questions (a hash), each question's votes (a hash) and each voter's rate. The room,
# its questions and its students expire TEACHER_GONE_SECONDS after the teacher was last
# heard from; votes expire ROOM_SECONDS after the last one. The room's hash also holds what
# the teacher's page draws (its content), for students' class views. An index, ffn:rooms, scores
# each held room's code by when its teacher was last heard from.

# A new room, unless the server or the address has as many as it may and none of those
# rooms is idle (no student has used it for the idle time: then the longest idle ends to
# make way). KEYS: the index, the room, the address's own index of rooms. ARGV: now, away
# seconds, gone seconds, most live rooms, most rooms per address, most held rooms, code,
# teacher's key, address, gone in milliseconds, idle seconds.
CREATE_SCRIPT = """
local now = tonumber(ARGV[1])
local idle_since = now - tonumber(ARGV[11])
local function end_idle(codes)
    local best, best_used = nil, nil
    for _, code in ipairs(codes) do
        local used = tonumber(redis.call('HGET', 'ffn:room:' .. code, 'used') or '0')
        if used < idle_since and (best == nil or used < best_used) then
            best, best_used = code, used
        end
    end
    if best == nil then return false end
    local room = 'ffn:room:' .. best
    local address = redis.call('HGET', room, 'address')
    redis.call('DEL', room, room .. ':questions', room .. ':present', room .. ':following')
    redis.call('ZREM', KEYS[1], best)
    if address and address ~= '' then redis.call('ZREM', 'ffn:rooms:from:' .. address, best) end
    return true
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[3]))
local live_since = now - tonumber(ARGV[2])
if ARGV[9] ~= '' then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[3]))
    local mine = redis.call('ZRANGEBYSCORE', KEYS[3], live_since, '+inf')
    if #mine >= tonumber(ARGV[5]) and not end_idle(mine) then return 'address' end
end
local live = redis.call('ZRANGEBYSCORE', KEYS[1], live_since, '+inf')
if #live >= tonumber(ARGV[4]) and not end_idle(live) then return 'full' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[6])
    and not end_idle(redis.call('ZRANGE', KEYS[1], 0, -1)) then return 'full' end
redis.call('ZADD', KEYS[1], now, ARGV[7])
if ARGV[9] ~= '' then
    redis.call('ZADD', KEYS[3], now, ARGV[7])
    redis.call('PEXPIRE', KEYS[3], ARGV[10])
end
redis.call('HSET', KEYS[2], 'key', ARGV[8], 'address', ARGV[9], 'version', 0, 'view', '{}',
           'revealed', '[]', 'used', ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[10])
return 'ok'
"""

# The teacher is heard from: the room stays, and a new view bumps its version. KEYS: the
# index, the room, its questions, its students, its followers. ARGV: now, gone in
# milliseconds, view ('' to leave it), present seconds, code. Returns the version, how
# many students are present and how many follow, and the revealed questions.
SHOW_SCRIPT = """
if redis.call('EXISTS', KEYS[2]) == 0 then return {-1, 0, 0, '[]'} end
local now = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[5])
local address = redis.call('HGET', KEYS[2], 'address')
if address and address ~= '' then
    local mine = 'ffn:rooms:from:' .. address
    redis.call('ZADD', mine, 'XX', now, ARGV[5])
    redis.call('PEXPIRE', mine, ARGV[2])
end
for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
if ARGV[3] ~= '' and redis.call('HGET', KEYS[2], 'view') ~= ARGV[3] then
    redis.call('HSET', KEYS[2], 'view', ARGV[3])
    redis.call('HINCRBY', KEYS[2], 'version', 1)
end
local since = now - tonumber(ARGV[4])
local room = redis.call('HMGET', KEYS[2], 'version', 'revealed')
return {tonumber(room[1]), redis.call('ZCOUNT', KEYS[4], since, '+inf'),
        redis.call('ZCOUNT', KEYS[5], since, '+inf'), room[2]}
"""

# A student's poll: note that they are present (and whether they follow), and that the
# room is in use. KEYS: the room's students, its followers, the room. ARGV: now, present
# seconds, voter, follows ('1' or '0'), most students.
PRESENT_SCRIPT = """
if redis.call('EXISTS', KEYS[3]) == 0 then return 'gone' end
redis.call('HSET', KEYS[3], 'used', ARGV[1])
local since = tonumber(ARGV[1]) - tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. since)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. since)
if redis.call('ZSCORE', KEYS[1], ARGV[3]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[5]) then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
    if ARGV[4] == '1' then redis.call('ZADD', KEYS[2], ARGV[1], ARGV[3])
    else redis.call('ZREM', KEYS[2], ARGV[3]) end
end
return 'ok'
"""

# One vote, atomically: the room is held, the question was asked, has that answer and is
# not revealed, the voter is under the rate, their address under its voters in the window
# and the question under its voters' cap; then the vote is set (or, with no answer, taken
# back). KEYS: room, questions, votes, rate, the address's voters (a sorted set by when
# each first voted in the window). ARGV: question, voter, answer ('' to take back), how
# long votes are kept and the rate's window (both in milliseconds), votes per window,
# most voters, now (ms), voters per address and window ('0' when the address is unknown).
VOTE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local answers = redis.call('HGET', KEYS[2], ARGV[1])
if not answers then return 'unknown' end
if ARGV[3] ~= '' then
    local known = false
    for _, answer in ipairs(cjson.decode(answers)) do
        if answer == ARGV[3] then known = true end
    end
    if not known then return 'unknown' end
end
for _, shown in ipairs(cjson.decode(redis.call('HGET', KEYS[1], 'revealed'))) do
    if shown == ARGV[1] then return 'closed' end
end
if tonumber(redis.call('GET', KEYS[4]) or '0') >= tonumber(ARGV[6]) then return 'rate' end
if ARGV[3] ~= '' and redis.call('HEXISTS', KEYS[3], ARGV[2]) == 0
    and redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[7]) then return 'full' end
local crowd = tonumber(ARGV[9])
if crowd > 0 then
    local now = tonumber(ARGV[8])
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. (now - tonumber(ARGV[5])))
    if not redis.call('ZSCORE', KEYS[5], ARGV[2]) then
        if redis.call('ZCARD', KEYS[5]) >= crowd then return 'crowd' end
        redis.call('ZADD', KEYS[5], now, ARGV[2])
    end
    redis.call('PEXPIRE', KEYS[5], ARGV[5])
end
if redis.call('INCR', KEYS[4]) == 1 then redis.call('PEXPIRE', KEYS[4], ARGV[5]) end
if ARGV[3] == '' then redis.call('HDEL', KEYS[3], ARGV[2])
else redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 'ok'
"""

# The teacher reveals a question. KEYS: room, questions. ARGV: question, most questions.
REVEAL_SCRIPT = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 'unknown' end
local shown = cjson.decode(redis.call('HGET', KEYS[1], 'revealed'))
for _, q in ipairs(shown) do if q == ARGV[1] then return 'ok' end end
table.insert(shown, ARGV[1])
redis.call('HSET', KEYS[1], 'revealed', cjson.encode(shown))
return 'ok'
"""

# What the teacher's page draws, in the room's hash (never a new hash: one without the
# room's expiry would outlive it). KEYS: the room. ARGV: the text.
SHARE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
redis.call('HSET', KEYS[1], 'content', ARGV[1])
return 'ok'
"""
