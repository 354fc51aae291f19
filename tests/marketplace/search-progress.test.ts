// `bosun plugins search` near its cap: thousands of matches, and one document request per package
// listed, with nothing on the screen meanwhile. The command in-process against a real HTTP server
// on 127.0.0.1, with stderr a terminal or not: the table lists the first 50 (--limit, --all), and
// a terminal gets a counter that overwrites itself; a pipe and --json get none.
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pluginsSearchCommand } from '../../packages/cli/src/commands/plugins-search.js'
import { createContext } from '../../packages/cli/src/context.js'
import type { Io } from '../../packages/cli/src/io.js'

const COUNT = 120
const names = Array.from({ length: COUNT }, (_, i) => `bosun-plugin-many-${String(i).padStart(3, '0')}`)
let server: Server
let url: string
let work: string
const documents: string[] = []

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-search-progress-')))
  server = createServer((request, response) => {
    const at = new URL(request.url!, 'http://registry')
    response.setHeader('content-type', 'application/json')
    if (at.pathname === '/-/v1/search') {
      const all = at.searchParams.get('text') === 'keywords:bosun-plugin' ? names : []
      const from = Number(at.searchParams.get('from'))
      // Pages of 40 at most, whatever is asked: a registry that caps below 250.
      const page = all.slice(from, from + Math.min(40, Number(at.searchParams.get('size'))))
      return response.end(JSON.stringify({ objects: page.map((name) => ({ package: { name, version: '1.0.0', keywords: ['bosun-plugin'] } })), total: all.length }))
    }
    const name = decodeURIComponent(at.pathname.slice(1))
    documents.push(name)
    response.end(JSON.stringify({ name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name, version: '1.0.0', keywords: ['bosun-plugin'], bosun: { hooks: ['agent/pre-step'] } } } }))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})

afterAll(async () => {
  await new Promise((done) => { server.close(done); server.closeAllConnections() })
  await rm(work, { recursive: true, force: true })
})

class Sink extends Writable {
  text = ''
  constructor(readonly isTTY: boolean) {
    super()
  }
  override _write(chunk: Buffer, _: string, done: () => void): void {
    this.text += String(chunk)
    done()
  }
}

async function search(options: { json?: boolean; limit?: number; all?: boolean }, tty: boolean) {
  const stdout = new Sink(tty)
  const stderr = new Sink(tty)
  const io: Io = {
    stdout,
    stderr,
    stdin: Readable.from([]),
    cwd: work,
    env: { HOME: work, npm_config_userconfig: join(work, 'no-npmrc'), npm_config_globalconfig: join(work, 'no-global-npmrc'), NO_COLOR: '1' },
    onInterrupt: () => () => {},
  }
  documents.length = 0
  const code = await pluginsSearchCommand(createContext(io, {}), [], { ...options, registry: url })
  return { code, stdout: stdout.text, stderr: stderr.text, documents: [...documents] }
}

const rows = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('bosun-plugin-many-'))

describe('bosun plugins search with many matches', () => {
  it('the table lists the first 50, reads only their documents, and says how to see more', async () => {
    const { code, stdout, stderr, documents: read } = await search({}, false)
    expect(code).toBe(0)
    expect(rows(stdout)).toHaveLength(50)
    expect(read.sort()).toEqual(names.slice(0, 50))
    expect(stderr).toBe(`50 of 120 on ${url}. More: --limit <n> or --all (each one listed is a request for its hooks). Before adding one: bosun plugins info <package>\n`)
  })

  it('--limit and --all list that many; --json every one, or --limit many', async () => {
    expect(rows((await search({ limit: 7 }, false)).stdout)).toHaveLength(7)
    const all = await search({ all: true }, false)
    expect(rows(all.stdout)).toHaveLength(COUNT)
    expect(all.stderr).toBe(`120 on ${url}. Before adding one: bosun plugins info <package>\n`)
    const json = await search({ json: true }, false)
    expect(json.stdout.trim().split('\n').map((line) => JSON.parse(line).name)).toEqual(names)
    expect(json.documents).toHaveLength(COUNT)
    // Each object carries the package's hooks, read from its document: --limit keeps a script's
    // search near the cap to that many documents.
    const some = await search({ json: true, limit: 5 }, false)
    expect(some.stdout.trim().split('\n').map((line) => [JSON.parse(line).name, JSON.parse(line).hooks])).toEqual(names.slice(0, 5).map((name) => [name, ['agent/pre-step']]))
    expect(some.documents.sort()).toEqual(names.slice(0, 5))
  })

  // --limit 0 (or a word) never reaches the command: the parser refuses it (packages/cli/test/usage-words.test.ts).
  it('--limit with --all is a usage error', async () => {
    await expect(search({ limit: 3, all: true }, false)).rejects.toMatchObject({ code: 'USAGE' })
  })

  it('on a terminal, a counter on stderr that overwrites itself and is erased before the closing line', async () => {
    const { stderr } = await search({}, true)
    const frames = stderr.split('\r\u001b[K')
    expect(frames).toContain('Searching… 120 matches read')
    expect(frames).toContain('Reading hooks… 50 of 50 packages')
    expect(frames.filter((frame) => frame.startsWith('Reading hooks…'))).toHaveLength(51)
    // Nothing but the counter before the last erase; the closing line after it, on a clean line.
    expect(stderr).not.toMatch(/\n[^]*\r\u001b\[K/)
    expect(frames.at(-1)).toMatch(/^50 of 120 on /)
  })

  it('no counter when stderr is not a terminal, nor with --json', async () => {
    expect((await search({}, false)).stderr).not.toContain('\r')
    const json = await search({ json: true }, true)
    expect(json.stderr).toBe('')
  })
})
