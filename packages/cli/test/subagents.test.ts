import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { createAgent, LOG_FORMAT_VERSION, type ModelRequest, type SessionEvent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { bosun, requireBuild, waitFor, it } from './helpers.js'

beforeAll(requireBuild)

const sessions = (dir: string) => join(dir, '.bosun/sessions')
const firstUserText = (request: ModelRequest) => {
  const first = request.messages.find((m) => m.role === 'user')
  return first && first.role === 'user' ? first.content.map((b) => ('text' in b ? b.text : '')).join('') : ''
}
const ofType = (events: readonly SessionEvent[], type: string) => events.filter((e) => e.type === type)
/** The ID cell of a table row (the first column: up to the first run of two spaces, its indentation kept). */
const idCell = (line: string) => /^ *\S.*?(?= {2,}|$)/.exec(line)![0]
const childIds = (events: readonly SessionEvent[]) => ofType(events, 'subagent/spawned').map((e) => (e.data as { childId: string }).childId)

/**
 * A real subagent tree, written by @bosun/plugin-subagents on the JSONL store the CLI reads: the
 * root spawns a background researcher (whose answer holds terminal escapes) and a foreground
 * child, which spawns a foreground grandchild. Each conversation is scripted by its first message.
 */
async function subagentTree(dir: string): Promise<{ bg: string; fg: string; leaf: string }> {
  const script: Record<string, ScriptedResponse[]> = {
    plan: [
      { toolCalls: [{ name: 'spawn_agent', id: 's1', args: { task: 'dig', agent: 'researcher', mode: 'background' } }] },
      { toolCalls: [{ name: 'spawn_agent', id: 's2', args: { task: 'check' } }] },
      { text: 'waiting' },
    ],
    dig: [{ toolCalls: [{ name: 'report', args: { content: 'found \u001b[31mgold\u001b[0m\nline two' } }] }, { text: 'bye' }],
    check: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'leaf' } }] }, { text: 'checked' }],
    leaf: [{ text: 'leaf answer' }],
  }
  const route = (request: ModelRequest): ScriptedResponse => {
    const key = firstUserText(request)
    return script[key]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: `done: ${key}` }
  }
  let now = Date.parse('2026-03-12T14:22:05Z')
  const store = jsonlStore({ dir: sessions(dir) })
  const root = await createAgent({
    model: scripted({ responses: Array.from({ length: 100 }, () => route) }), store, sessionId: 'root', now: () => (now += 10),
    plugins: [[subagents, { agents: { researcher: { system: 'Research; report facts.' } } }]],
  })
  root.followup('plan')
  await waitFor(() => ofType(root.session.events, 'subagent/settled').length === 2 && root.status === 'idle' && !root.inbox.hasPending, 'both children to settle')
  const [bg, fg] = childIds(root.session.events) as [string, string]
  await root.close()
  const [leaf] = childIds((await store.read!(fg))!.events) as [string]
  await store.close()
  return { bg, fg, leaf }
}

describe.concurrent('subagents in the CLI', () => {
  it('bosun log shows spawns and settlements: child id, mode, profile, depth, epoch, end reason and a one-line, terminal-safe answer', async ({ dir, expect }) => {
    const { bg, fg, leaf } = await subagentTree(dir)
    const [log, child] = await Promise.all([bosun(['log', 'root'], { cwd: dir }), bosun(['log', fg], { cwd: dir })])
    expect(log.code).toBe(0)
    expect(log.stdout).toContain(`⑂ spawned background agent researcher ${bg} (depth 1)\n`)
    expect(log.stdout).toContain(`⑂ spawned foreground agent ${fg} (depth 1)\n`)
    expect(log.stdout).toContain(`⑂ settled agent ${fg} #1 · completed · foreground: "checked"\n`)
    expect(log.stdout).toContain(`⑂ settled agent ${bg} #1 · completed · background · researcher: "found ␛[31mgold␛[0m ⏎ line two"\n`)
    expect(log.stdout).not.toContain('\u001b')
    expect(child.stdout).toContain(`⑂ spawned foreground agent ${leaf} (depth 2)\n`)
    expect(child.stdout).toContain(`⑂ settled agent ${leaf} #1 · completed · foreground: "leaf answer"\n`)
  })

  it('bosun sessions list --tree nests each child under its parent, from the headers alone', async ({ dir, expect }) => {
    const { bg, fg, leaf } = await subagentTree(dir)
    const [flat, tree, json] = await Promise.all([
      bosun(['sessions', 'list'], { cwd: dir }),
      bosun(['sessions', 'list', '--tree'], { cwd: dir }),
      bosun(['sessions', 'list', '--tree', '--json'], { cwd: dir }),
    ])
    expect(tree.code).toBe(0)
    const ids = (stdout: string) => stdout.split('\n').slice(1, -1).map(idCell)
    expect(ids(tree.stdout)).toEqual(['root', `└ ${bg} (background)`, `└ ${fg} (foreground)`, `  └ ${leaf} (foreground)`])
    expect(ids(flat.stdout)).toEqual(['root', bg, fg, leaf])
    // A child's first prompt is its task.
    expect(tree.stdout).toMatch(new RegExp(`└ ${bg} \\(background\\) +.* dig\\n`))
    const rows = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; level: number; delegation?: { parentSessionId: string; depth: number; mode: string } })
    expect(rows.map((row) => [row.id, row.level, row.delegation?.parentSessionId, row.delegation?.mode])).toEqual([
      ['root', 0, undefined, undefined],
      [bg, 1, 'root', 'continuable'],
      [fg, 1, 'root', 'one-shot'],
      [leaf, 2, fg, 'one-shot'],
    ])
  })

  it('bosun sessions show says who spawned a child and how (its header\'s delegation), in --json too; a top-level session says nothing of it', async ({ dir, expect }) => {
    const { bg, fg, leaf } = await subagentTree(dir)
    const [root, child, grandchild, json] = await Promise.all([
      bosun(['sessions', 'show', 'root'], { cwd: dir }),
      bosun(['sessions', 'show', bg], { cwd: dir }),
      bosun(['sessions', 'show', leaf], { cwd: dir }),
      bosun(['sessions', 'show', fg, '--json'], { cwd: dir }),
    ])
    expect(child.code).toBe(0)
    expect(child.stdout).toContain(`\nspawned  by root · background · depth 1 · call s1\n`)
    expect(grandchild.stdout).toContain(`\nspawned  by ${fg} · foreground · depth 2 · call c1\n`)
    expect(root.stdout).not.toContain('spawned')
    expect(JSON.parse(json.stdout).delegation).toEqual({ parentSessionId: 'root', callId: 's2', depth: 1, mode: 'one-shot' })
  })

  it('bosun log reads a settlement written before reason and answer were recorded, and shows plugin strings terminal-safe', async ({ dir, expect }) => {
    const store = jsonlStore({ dir: sessions(dir) })
    const stored = await store.create({ id: 'old', version: LOG_FORMAT_VERSION, createdAt: 1 })
    const events = [
      { type: 'subagent/spawned', data: { childId: 'kid', callId: 'c1', agent: 'evil\u001b[2J', mode: 'background', depth: 1 } },
      { type: 'subagent/settled', data: { childId: 'kid', epoch: 1, messageId: 'settle:kid:1' } },
    ]
    events.forEach((event, seq) => stored.writer.append({ seq, time: 2 + seq, ...event } as SessionEvent))
    await stored.writer.close()
    await store.close()
    const log = await bosun(['log', 'old'], { cwd: dir })
    expect(log.code).toBe(0)
    expect(log.stdout).toContain('⑂ spawned background agent evil␛[2J kid (depth 1)\n')
    expect(log.stdout).toContain('⑂ settled agent kid #1 · background · evil␛[2J\n')
    expect(log.stdout).not.toContain('\u001b')
  })

  it('--tree shows an orphan (its parent is gone) and sessions whose parents form a cycle once each, as roots that say why', async ({ dir, expect }) => {
    const store = jsonlStore({ dir: sessions(dir) })
    const delegation = (parentSessionId: string) => ({ parentSessionId, callId: 'c', depth: 1, mode: 'continuable' as const })
    const made = [
      { id: 'alone', version: LOG_FORMAT_VERSION, createdAt: 1 },
      { id: 'orphan', version: LOG_FORMAT_VERSION, createdAt: 2, delegation: delegation('gone\u001b]0;pwned\u0007') },
      { id: 'cycle-a', version: LOG_FORMAT_VERSION, createdAt: 3, delegation: delegation('cycle-b') },
      { id: 'cycle-b', version: LOG_FORMAT_VERSION, createdAt: 4, delegation: delegation('cycle-a') },
      { id: 'self', version: LOG_FORMAT_VERSION, createdAt: 5, delegation: delegation('self') },
    ]
    for (const header of made) await (await store.create(header)).writer.close()
    await store.close()
    const tree = await bosun(['sessions', 'list', '--tree'], { cwd: dir })
    expect(tree.code).toBe(0)
    const ids = tree.stdout.split('\n').slice(1, -1).map(idCell)
    expect(ids).toEqual([
      'alone',
      'orphan (background) (parent gone␛]0;pwned␇ not found)',
      'cycle-a (background) (its parents lead back to it)',
      '└ cycle-b (background)',
      'self (background) (its parents lead back to it)',
    ])
    expect(tree.stdout).not.toContain('\u001b')
  })
})
