// CORRUPT_LOG names the file, the line and the problem, and never quotes the damaged content: a
// session holds conversations, and a "session file" may be any file (it once quoted the start of
// a secret file behind a link). Property: whatever the damage and the secret in it.
import { writeFile } from 'node:fs/promises'
import { inspect } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { jsonlStore } from './store.js'
import { event, fileText, header, rejection, sessionFile } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ dir, cleanup } = await tempDir()))
afterAll(() => cleanup())

const headerText = (extra: Record<string, unknown> = {}) => JSON.stringify({ bosun: 'session', ...header('s'), ...extra })
const eventText = (seq: number, extra: Record<string, unknown> = {}) => JSON.stringify({ ...event(seq), ...extra })
const good = (seq: number) => eventText(seq)

/** Ways to damage a session with a secret in the damage: the lines of the file, and the line the error must name. */
const damages: { name: string; lines: (secret: string) => (string | Buffer)[]; line: number }[] = [
  { name: 'a header that is raw text', lines: (secret) => [secret, good(0)], line: 1 },
  { name: 'a header that is JSON without the marker', lines: (secret) => [JSON.stringify({ password: secret }), good(0)], line: 1 },
  { name: 'a header whose id is the secret', lines: (secret) => [headerText({ id: secret }), good(0)], line: 1 },
  { name: 'a header whose version is the secret', lines: (secret) => [headerText({ version: secret }), good(0)], line: 1 },
  { name: 'a header whose createdAt is the secret', lines: (secret) => [headerText({ createdAt: secret }), good(0)], line: 1 },
  { name: 'a header whose seedLength is the secret', lines: (secret) => [headerText({ seedLength: secret }), good(0)], line: 1 },
  { name: 'a header that is not UTF-8', lines: (secret) => [Buffer.concat([Buffer.from(secret), Buffer.from([0xff])]), good(0)], line: 1 },
  { name: 'an event line that is raw text', lines: (secret) => [headerText(), good(0), secret, good(1)], line: 3 },
  { name: 'an event line cut inside the secret', lines: (secret) => [headerText(), eventText(0, { data: { text: secret } }).slice(0, -3), good(1)], line: 2 },
  { name: 'an event line that is an array', lines: (secret) => [headerText(), JSON.stringify([secret]), good(0)], line: 2 },
  { name: 'an event whose seq is the secret', lines: (secret) => [headerText(), eventText(0, { seq: secret }), good(1)], line: 2 },
  { name: 'an event whose type is not a string', lines: (secret) => [headerText(), eventText(0, { type: { secret } }), good(1)], line: 2 },
  { name: 'an event whose data is the secret', lines: (secret) => [headerText(), eventText(0, { data: secret }), good(1)], line: 2 },
  { name: 'an event line that is not UTF-8', lines: (secret) => [headerText(), Buffer.concat([Buffer.from(eventText(0, { data: { secret } })), Buffer.from([0xc3])]), good(1)], line: 2 },
]

/** Everything an error shows: message, stack, details and causes, as `inspect` prints them. */
const shown = (error: unknown) => inspect(error, { depth: 8 }) + JSON.stringify((error as BosunError).details)

it('every CORRUPT_LOG names the file and the line and quotes none of the damaged content (property)', async () => {
  const store = jsonlStore({ dir })
  // A marker no message can contain by chance, then anything: JSON specials, quotes, non-ASCII.
  const secrets = fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{6,12}$/), fc.string({ maxLength: 12 }))
    .map(([marker, rest]) => `S3CR3T-${marker}-${rest.replace(/[\n\r\u2028\u2029]/g, '')}`)
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...damages), secrets, async (damage, secret) => {
      const parts = damage.lines(secret).map((line) => (typeof line === 'string' ? Buffer.from(line) : line))
      await writeFile(sessionFile(dir, 's'), Buffer.concat(parts.flatMap((line) => [line, Buffer.from('\n')])))
      for (const read of [() => store.open('s'), () => store.read!('s')]) {
        const error = await read().then(() => undefined, (e: unknown) => e)
        expect(BosunError.is(error, 'CORRUPT_LOG'), `${damage.name}: ${String(error)}`).toBe(true)
        expect((error as BosunError).message).toContain(sessionFile(dir, 's'))
        expect((error as BosunError).details).toEqual({ file: sessionFile(dir, 's'), line: damage.line })
        expect(shown(error), damage.name).not.toContain('S3CR3T')
      }
    }),
    { numRuns: 150, examples: damages.map((damage) => [damage, 'S3CR3T-example-"quoted" {json} ü🚢']) },
  )
  await store.close()
})

it('a seed shorter than the header announces is named without quoting the header', async () => {
  const store = jsonlStore({ dir })
  await writeFile(sessionFile(dir, 's'), fileText(header('s', { seedLength: 987654 }), [event(0)]))
  const error = await rejection(store.open('s'))
  expect(BosunError.is(error, 'CORRUPT_LOG')).toBe(true)
  expect(error.message).toMatch(/line 3: the header announces more seed events than the 1 stored/)
  expect(shown(error)).not.toContain('987654')
  await store.close()
})
