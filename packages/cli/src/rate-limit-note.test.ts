import { describe, expect, it } from 'vitest'
import { blockedNote } from './blocked-note.js'
import { formatTime } from './session-info.js'

const NOW = new Date(2026, 11, 4, 9, 27, 30).getTime()
const metadata = { limit: 20, windowMs: 60_000, retryAfterMs: 41_200, counts: 'turns', burst: 20, key: 'session', onLimit: 'reject' }

describe('blockedNote for rate-limit: what was limited and when to send again', () => {
  it.each([
    [{}, 'the rate limit of 20 turns a minute for this session is used up, so the message did not run; send it again at 09:28:12 (in 42s).'],
    [{ limit: 1, counts: 'steps', key: 'userId:ada', windowMs: 90_000, retryAfterMs: 89_000 }, 'the rate limit of 1 step (model calls) every 1m 30s for userId:ada is used up, so the message did not run; send it again at 09:28:59 (in 1m 29s).'],
    [{ onLimit: 'requeue', windowMs: 3_600_000, retryAfterMs: 754_000 }, 'the rate limit of 20 turns an hour for this session is used up; the message goes back in the queue at 09:40:04 (in 12m 34s).'],
    [{ windowMs: 86_400_000 * 7, retryAfterMs: 86_400_000 * 2 }, `send it again at ${formatTime(NOW + 86_400_000 * 2)} (in 48h 00m).`],
  ])('%j', (change, said) => {
    expect(blockedNote('rate-limit', { ...metadata, ...change }, NOW)).toContain(said)
  })

  it('told in the past for a log read later (bosun log): the time from the block, not a wait from now', () => {
    expect(blockedNote('rate-limit', metadata, NOW, true)).toBe('the rate limit of 20 turns a minute for this session was used up, so the message did not run; it could be sent again at 09:28:12 (42s later).')
    expect(blockedNote('rate-limit', { ...metadata, onLimit: 'requeue' }, NOW, true)).toBe('the rate limit of 20 turns a minute for this session was used up; the message was to go back in the queue at 09:28:12 (42s later).')
  })

  it('metadata that is not rate-limit\'s (another plugin of that name, a newer shape) is shown as JSON, as before', () => {
    expect(blockedNote('rate-limit', { limit: 'many' }, NOW)).toBe('{"limit":"many"}')
    expect(blockedNote('my-guard', metadata, NOW)).toBe(JSON.stringify(metadata))
  })
})
