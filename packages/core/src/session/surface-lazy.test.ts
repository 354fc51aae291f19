import { describe, expect, it } from 'vitest'
import { history } from '../testing/histories.js'
import { heapAfterGc } from '../testing/heap.js'
import { Session } from './session.js'
import { Surface } from './surface.js'

// A surface attached to a session is built on its first read (goal 2: an idle session keeps no
// copy of its history's messages). These check that the put-off build returns what the eager one
// did, whenever the first read comes, and that an unread surface really holds nothing.

/** The surface as the old eager attach built it: every event applied at once, in order. */
function eager(events: readonly Parameters<Surface['apply']>[0][]): Surface {
  const surface = new Surface()
  for (const event of events) surface.apply(event)
  return surface
}

describe('a surface attached to a session is built on first read', () => {
  it('gives the same messages and seqs as applying every event, when first read after more appends', async () => {
    const agent = await history(3)
    const events = agent.session.events
    const session = new Session(agent.session.header, [...events.slice(0, 10)])
    const surface = Surface.attach(session)
    for (const event of events.slice(10)) session.append(event.type, event.data)
    session.append('compaction/summary', { summary: 'S', firstKeptSeq: 12 })
    const reference = eager(session.events)
    expect(surface.messages).toEqual(reference.messages)
    expect(surface.seqs).toEqual(reference.seqs)
    expect(surface.messages.length).toBeGreaterThan(2)
  })

  it('shows an observer of the event being appended the pre-state, when that is its first read', async () => {
    const agent = await history(2)
    const session = new Session(agent.session.header, [...agent.session.events])
    const surface = Surface.attach(session)
    const before = eager(session.events).messages.length
    const seen: number[] = []
    session.subscribe((event) => {
      if (event.type === 'user/message') seen.push(surface.messages.length)
    })
    session.append('user/message', { id: 'late', role: 'user', content: [{ type: 'text', text: 'late' }] })
    expect(seen).toEqual([before])
    expect(surface.messages).toHaveLength(before + 1)
    expect(surface.messages.at(-1)).toMatchObject({ role: 'user', id: 'late' })
  })

  it('folds an event an observer appended during another append as an eager surface did, read then or later', async () => {
    const agent = await history(1)
    const user = (id: string) => ({ id, role: 'user', content: [{ type: 'text', text: id }] })
    for (const readInside of [false, true]) {
      const session = new Session(agent.session.header, [...agent.session.events])
      const lazy = Surface.attach(session)
      // The old eager attach: every event applied at once, then one projection per append.
      const eagerSurface = eager(session.events)
      session.project((event) => eagerSurface.apply(event))
      const seenInside: number[] = []
      session.subscribe((event) => {
        if ((event.data as { id?: string }).id !== 'outer') return
        session.append('user/message', user('nested'))
        if (readInside) seenInside.push(lazy.messages.length)
      })
      session.append('user/message', user('outer'))
      session.append('user/message', user('later'))
      expect(lazy.messages).toEqual(eagerSurface.messages)
      expect(lazy.seqs).toEqual(eagerSurface.seqs)
      expect(lazy.messages.map((m) => (m as { id?: string }).id).slice(-3)).toEqual(['nested', 'outer', 'later'])
      // Read inside the outer observer: the nested event's projection has run, the outer's not.
      if (readInside) expect(seenInside).toEqual([eager(agent.session.events).messages.length + 1])
    }
  })

  it('applies an event passed to apply() after the ones it stands for', async () => {
    const agent = await history(1)
    const session = new Session(agent.session.header, [...agent.session.events])
    const surface = Surface.attach(session)
    const extra = { seq: session.length, time: 0, type: 'user/message', data: { id: 'x', role: 'user', content: [] } } as const
    surface.apply(extra as never)
    expect(surface.messages.map((m) => m.role)).toEqual([...eager(session.events).messages.map((m) => m.role), 'user'])
  })

  it('holds no copy of the messages until read', async () => {
    const agent = await history(10)
    const events = [...agent.session.events]
    // 10,000 counted, after 10,000 made and read (kept until the end, so that nothing of theirs
    // is freed between the readings): what is paid once — code compiled and optimised mid-loop,
    // its feedback — came to 200–400 B per surface, varying from run to run, over 2,000 surfaces
    // after 200 warm ones, on top of their own ~400 B.
    const count = 10_000
    const heap = heapAfterGc
    const make = () => new Session(agent.session.header, [...events])
    const warm = Array.from({ length: count }, () => Surface.attach(make()))
    for (const surface of warm) void surface.messages
    const sessions = Array.from({ length: count }, make)
    const base = heap()
    const surfaces = sessions.map((session) => Surface.attach(session))
    const unread = (heap() - base) / count
    for (const surface of surfaces) expect(surface.messages.length).toBe(40)
    const read = (heap() - base) / count
    // Built, 40 messages cost their two arrays and 20 small message objects (~2 KB); unread,
    // the surface object and its projection closure.
    expect(unread).toBeLessThan(800)
    expect(read - unread).toBeGreaterThan(1000)
    // Read after the last reading: a value no later line uses may be collected before a reading
    // (optimised code knows it is dead), and the reading would count it as freed.
    expect(warm.length + surfaces.length).toBe(2 * count)
  })
})
