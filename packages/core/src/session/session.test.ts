import { describe, it, expect } from 'vitest'
import { isFrozenJson } from '../json.js'
import { thrown } from '../testing/errors.js'
import { msg } from '../testing/harness.js'
import type { SessionWriter } from '../store/types.js'
import type { SessionEvent } from './events.js'
import { createUserMessage, messageText, toUserMessage, type UserMessage } from './messages.js'
import { Session } from './session.js'
import { formatTimeline } from './timeline.js'

function clock(start = 1000) {
  let t = start
  return () => t++
}

const header = { id: 's', version: 1, createdAt: 0 }

describe('Session.append', () => {
  it('assigns contiguous seq from 0 and takes time from the injected clock', () => {
    const session = new Session(header, [], { now: clock(500) })
    const a = session.append('turn/start', { turn: 1 })
    const b = session.append('step/start', { turn: 1, step: 1 })
    const c = session.append('my-plugin/ping', { n: 3 })
    expect([a, b, c].map((e) => [e.seq, e.time, e.type])).toEqual([
      [0, 500, 'turn/start'],
      [1, 501, 'step/start'],
      [2, 502, 'my-plugin/ping'],
    ])
    expect(session.events).toEqual([a, b, c])
    expect(session.events[1]).toBe(b)
    expect(session.length).toBe(3)
    expect(session.last).toBe(c)
    expect(session.id).toBe('s')
  })

  it('continues the seq of a stored log', () => {
    const stored = new Session(header, [], { now: clock() })
    stored.append('turn/start', { turn: 1 })
    stored.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const resumed = new Session(header, [...stored.events], { now: clock() })
    expect(resumed.append('turn/start', { turn: 2 }).seq).toBe(2)
    expect(resumed.events.map((e) => e.seq)).toEqual([0, 1, 2])
  })

  it('the event and its data are deep-frozen: mutating them throws', () => {
    const session = new Session(header)
    const event = session.append('x-plugin/state', { list: [{ deep: 1 }], nested: { a: 'b' } })
    const data = event.data as { list: { deep: number }[]; nested: { a: string } }
    expect(() => {
      data.list[0]!.deep = 2
    }).toThrow(TypeError)
    expect(() => data.list.push({ deep: 3 })).toThrow(TypeError)
    expect(() => {
      data.nested.a = 'c'
    }).toThrow(TypeError)
    expect(() => {
      ;(event as { seq: number }).seq = 9
    }).toThrow(TypeError)
    expect(event.data).toEqual({ list: [{ deep: 1 }], nested: { a: 'b' } })
  })

  it("the data is a copy: changing the caller's object afterwards does not change the log", () => {
    const session = new Session(header)
    const data = { turn: 1, extra: { tags: ['a'] } }
    const event = session.append('turn/start', data)
    data.turn = 2
    data.extra.tags.push('b')
    expect(event.data).toEqual({ turn: 1, extra: { tags: ['a'] } })
    expect(Object.isFrozen(data)).toBe(false) // the caller's object is left alone
  })

  it('properties whose value is undefined are dropped, as JSON.stringify does', () => {
    const session = new Session(header)
    const event = session.append('x-plugin/state', { a: 1, b: undefined, nested: { c: undefined, d: null } })
    expect(Object.keys(event.data as object)).toEqual(['a', 'nested'])
    expect(event.data).toEqual({ a: 1, nested: { d: null } })
    expect(JSON.parse(JSON.stringify(event.data))).toStrictEqual(event.data)
  })

  it('accepts a null-prototype object as plain data', () => {
    const session = new Session(header)
    const data = Object.assign(Object.create(null) as object, { a: 1 })
    expect(session.append('x-plugin/state', data).data).toEqual({ a: 1 })
  })

  class Point {
    constructor(public x: number) {}
  }
  const cyclic: Record<string, unknown> = { a: 1 }
  cyclic.self = cyclic
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [1, , 3]

  it.each<[string, () => unknown, string, RegExp]>([
    ['a function', () => ({ cb: () => 1 }), '$.cb', /function/],
    ['NaN', () => ({ n: NaN }), '$.n', /NaN is not a finite number/],
    ['Infinity', () => ({ deep: { n: Infinity } }), '$.deep.n', /Infinity is not a finite number/],
    ['-Infinity', () => ({ list: [1, -Infinity] }), '$.list[1]', /-Infinity/],
    ['a bigint', () => ({ big: 10n }), '$.big', /bigint/],
    ['a symbol', () => ({ s: Symbol('x') }), '$.s', /symbol/],
    ['a Date', () => ({ when: new Date(0) }), '$.when', /Date/],
    ['a Map', () => ({ m: new Map() }), '$.m', /Map/],
    ['a class instance', () => ({ p: new Point(1) }), '$.p', /Point/],
    ['a cycle', () => ({ holder: cyclic }), '$.holder.self', /cycle/],
    ['a sparse array', () => ({ list: sparse }), '$.list[1]', /sparse/],
    ['undefined in an array', () => ({ list: [undefined] }), '$.list[0]', /undefined/],
  ])('refuses non-JSON data (%s) with NOT_JSON naming the event type and the path; the log is unchanged', (_case, data, path, problem) => {
    const appended: SessionEvent[] = []
    const writer: SessionWriter = { append: (e) => void appended.push(e), flush: async () => {}, close: async () => {} }
    const session = new Session(header, [], { writer })
    session.append('turn/start', { turn: 1 })
    const observed: SessionEvent[] = []
    session.subscribe((e) => observed.push(e))
    const error = thrown(() => session.append('x-plugin/state', data()))
    expect(error.code).toBe('NOT_JSON')
    expect(error.message).toContain('"x-plugin/state"')
    expect(error.message).toContain(`at ${path}`)
    expect(error.message).toMatch(problem)
    expect(error.details).toEqual({ what: 'Event "x-plugin/state" data', path })
    expect(session.length).toBe(1)
    expect(appended).toHaveLength(1)
    expect(observed).toEqual([])
    expect(session.append('turn/end', { turn: 1, reason: { kind: 'completed' } }).seq).toBe(1) // no gap
  })

  it('stores -0 as 0, as JSON writes it, so the event in memory equals the event a store reopens', () => {
    const session = new Session(header)
    const data = { n: -0, list: [-0, 1], deep: { m: -0 } }
    const event = session.append('x-plugin/state', data)
    expect(Object.is((event.data as typeof data).n, 0)).toBe(true)
    expect(Object.is((event.data as typeof data).list[0], 0)).toBe(true)
    expect(Object.is((event.data as typeof data).deep.m, 0)).toBe(true)
    expect(event.data).toEqual(JSON.parse(JSON.stringify(data)))
    // The careful copy (taken past the fast path's depth) does the same.
    let deep: Record<string, unknown> = { n: -0 }
    for (let i = 0; i < 100; i++) deep = { next: deep }
    let walk = session.append('x-plugin/state', deep).data as Record<string, unknown>
    for (let i = 0; i < 100; i++) walk = walk.next as Record<string, unknown>
    expect(Object.is(walk.n, 0)).toBe(true)
  })

  it('keeps an own "__proto__" key as a key (as JSON.parse reads it back), never as the copy’s prototype', () => {
    const session = new Session(header)
    const data = JSON.parse('{"args": {"__proto__": {"x": 1}, "y": 2}}') as { args: Record<string, unknown> }
    const event = session.append('x-plugin/state', data)
    const args = (event.data as typeof data).args
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype)
    expect(Object.keys(args)).toEqual(['__proto__', 'y'])
    expect((args as { x?: number }).x).toBeUndefined()
    expect(Object.isFrozen(args)).toBe(true)
    expect(JSON.stringify(event.data)).toBe(JSON.stringify(data))
    expect(JSON.parse(JSON.stringify(event.data))).toEqual(event.data)
  })

  it('copies data nested deeper than the fast path goes, and still finds a cycle and names its path there', () => {
    const session = new Session(header)
    let deep: Record<string, unknown> = { leaf: true }
    for (let i = 0; i < 200; i++) deep = { next: deep }
    const event = session.append('x-plugin/state', deep)
    expect(JSON.stringify(event.data)).toBe(JSON.stringify(deep))
    expect(event.data).not.toBe(deep)
    let walk = event.data as Record<string, unknown>
    for (let i = 0; i < 200; i++) {
      expect(Object.isFrozen(walk)).toBe(true)
      walk = walk.next as Record<string, unknown>
    }
    expect(walk).toEqual({ leaf: true })

    const ring: Record<string, unknown> = { n: 0 }
    let tail = ring
    for (let i = 1; i < 100; i++) tail = tail.next = { n: i } as Record<string, unknown>
    tail.next = ring
    const error = thrown(() => session.append('x-plugin/state', { ring }))
    expect(error.code).toBe('NOT_JSON')
    expect(error.details).toEqual({ what: 'Event "x-plugin/state" data', path: `$.ring${'.next'.repeat(100)}` })
    expect(session.length).toBe(1)
  })

  it('cannot be fooled into reusing an object as checked JSON: no readable mark, no inheritance through the prototype', () => {
    const session = new Session(header)
    const message = createUserMessage('hello')
    expect(Object.getOwnPropertySymbols(message)).toEqual([])
    expect(Object.getOwnPropertyNames(message).sort()).toEqual(['content', 'id', 'role', 'source'])
    expect(isFrozenJson(message)).toBe(true)
    const heir = Object.create(message) as object
    expect(isFrozenJson(heir)).toBe(false)
    expect(() => toUserMessage(heir)).toThrow(expect.objectContaining({ code: 'NOT_JSON' }))
    expect(isFrozenJson(new Proxy(message, {}))).toBe(false)
    // Appended data is deep-frozen but not marked; a message inside it is reused as it is.
    const event = session.append('x-plugin/state', { message })
    expect(isFrozenJson(event.data)).toBe(false)
    expect((event.data as { message: unknown }).message).toBe(message)
  })

  it('drops undefined properties at any depth, as JSON.stringify does, and keeps the copy independent of the input', () => {
    const session = new Session(header)
    const chunk = { type: 'text-delta', text: 'a', extra: undefined, meta: { keep: 1, drop: undefined } }
    const event = session.append('x-plugin/state', { chunk })
    expect(event.data).toEqual({ chunk: { type: 'text-delta', text: 'a', meta: { keep: 1 } } })
    expect(Object.keys((event.data as { chunk: object }).chunk)).toEqual(['type', 'text', 'meta'])
    chunk.text = 'changed'
    expect((event.data as { chunk: { text: string } }).chunk.text).toBe('a')
  })

  it.each<[string, unknown]>([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', 'hello'],
    ['a number', 3],
    ['undefined', undefined],
  ])('refuses data that is not a JSON object (%s) with NOT_JSON', (_case, data) => {
    const session = new Session(header)
    const error = thrown(() => session.append('x-plugin/state', data))
    expect(error.code).toBe('NOT_JSON')
    expect(error.message).toContain('"x-plugin/state"')
    expect(session.length).toBe(0)
  })

  it.each(['turn', 'Turn/start', 'turn/', '/turn', 'turn//start', 'turn start/x', 'turn/start ', '-x/y', 'x/_y', '', 'émoji/x'])(
    'refuses the event type %j with INVALID_EVENT_TYPE and the log unchanged',
    (type) => {
      const session = new Session(header)
      const error = thrown(() => session.append(type, {}))
      expect(error.code).toBe('INVALID_EVENT_TYPE')
      expect(error.message).toContain(JSON.stringify(type))
      expect(session.length).toBe(0)
    },
  )

  it('refuses a non-string event type with INVALID_EVENT_TYPE', () => {
    const session = new Session(header)
    expect(thrown(() => session.append(42 as unknown as string, {})).code).toBe('INVALID_EVENT_TYPE')
    expect(session.length).toBe(0)
  })

  it.each(['turn/start', 'agent/inbox/spliced', 'rate-limit/hit', 'a1/b-2/c3'])('accepts the namespaced event type %j', (type) => {
    const session = new Session(header)
    expect(session.append(type, {}).type).toBe(type)
  })
})

describe('Session observers and projections', () => {
  it('a throwing observer is contained and reported; later observers still run and append returns the event', () => {
    const reported: [string, string][] = []
    const session = new Session(header, [], { reportError: (error, context) => reported.push([(error as Error).message, context]) })
    const seen: string[] = []
    session.subscribe(() => {
      throw new Error('observer broke')
    })
    session.subscribe((e) => seen.push(`second saw ${e.seq}`))
    const event = session.append('turn/start', { turn: 1 })
    expect(event.seq).toBe(0)
    expect(session.length).toBe(1)
    expect(seen).toEqual(['second saw 0'])
    expect(reported).toEqual([['observer broke', 'session observer (on "turn/start")']])
  })

  it('a throwing projection is contained and reported too', () => {
    const reported: string[] = []
    const session = new Session(header, [], { reportError: (_e, context) => reported.push(context) })
    session.project(() => {
      throw new Error('projection broke')
    })
    expect(session.append('turn/start', { turn: 1 }).seq).toBe(0)
    expect(reported).toEqual(['session projection (on "turn/start")'])
  })

  it('a reporter that itself throws does not break session.reportError', () => {
    const session = new Session(header, [], {
      reportError: () => {
        throw new Error('reporter broke')
      },
    })
    expect(() => session.reportError(new Error('x'), 'somewhere')).not.toThrow()
  })

  it('observers run before projections, and see the event already in the log', () => {
    const session = new Session(header)
    const order: string[] = []
    let projected = 0
    session.project((e) => {
      projected = e.seq + 1
      order.push(`projection ${e.seq}`)
    })
    session.subscribe((e) => order.push(`observer ${e.seq}: log=${session.length} projected=${projected}`))
    session.project((e) => order.push(`second projection ${e.seq}`))
    session.append('turn/start', { turn: 1 })
    expect(order).toEqual(['observer 0: log=1 projected=0', 'projection 0', 'second projection 0'])
  })

  it('the writer receives each event before the observers are notified', () => {
    const order: string[] = []
    const writer: SessionWriter = { append: (e) => void order.push(`write ${e.seq}`), flush: async () => {}, close: async () => {} }
    const session = new Session(header, [], { writer })
    session.subscribe((e) => order.push(`observe ${e.seq}`))
    session.append('turn/start', { turn: 1 })
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(order).toEqual(['write 0', 'observe 0', 'write 1', 'observe 1'])
  })

  it('unsubscribe stops an observer; the others keep receiving', () => {
    const session = new Session(header)
    const a: number[] = []
    const b: number[] = []
    const stopA = session.subscribe((e) => a.push(e.seq))
    session.subscribe((e) => b.push(e.seq))
    session.append('turn/start', { turn: 1 })
    stopA()
    session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(a).toEqual([0])
    expect(b).toEqual([0, 1])
  })

  it('flush with no writer resolves; with a writer it is the writer’s flush', async () => {
    await expect(new Session(header).flush()).resolves.toBeUndefined()
    const failing: SessionWriter = {
      append: () => {},
      flush: () => Promise.reject(new Error('disk full')),
      close: async () => {},
    }
    await expect(new Session(header, [], { writer: failing }).flush()).rejects.toThrow('disk full')
  })

  it('the header is frozen and carries seedLength', () => {
    const session = new Session({ ...header, parent: 'p', seedLength: 4 })
    expect(session.header).toEqual({ id: 's', version: 1, createdAt: 0, parent: 'p', seedLength: 4 })
    expect(Object.isFrozen(session.header)).toBe(true)
  })
})

describe('createUserMessage and toUserMessage', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

  it('a string becomes a user-sourced text message with a fresh UUID', () => {
    const a = createUserMessage('hello')
    const b = createUserMessage('hello')
    expect(a).toEqual({ id: expect.stringMatching(UUID), role: 'user', content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } })
    expect(b.id).toMatch(UUID)
    expect(a.id).not.toBe(b.id)
    expect(toUserMessage('hi').source).toEqual({ kind: 'user' })
    expect(toUserMessage('hi').id).toMatch(UUID)
  })

  it('takes a fixed id, content blocks and a source with extra JSON fields', () => {
    const message = createUserMessage(
      [
        { type: 'text', text: 'what is in ' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0' },
      ],
      { id: 'm1', source: { kind: 'plugin', plugin: 'clock', userId: 'ada' } },
    )
    expect(message).toEqual({
      id: 'm1',
      role: 'user',
      content: [
        { type: 'text', text: 'what is in ' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0' },
      ],
      source: { kind: 'plugin', plugin: 'clock', userId: 'ada' },
    })
    expect(messageText(message)).toBe('what is in ')
  })

  it('the message is deep-frozen and independent of the caller’s blocks', () => {
    const blocks = [{ type: 'text' as const, text: 'a' }]
    const source = { kind: 'user', tags: ['x'] }
    const message = createUserMessage(blocks, { id: 'm', source })
    blocks[0]!.text = 'changed'
    blocks.push({ type: 'text', text: 'more' })
    source.tags.push('y')
    expect(message.content).toEqual([{ type: 'text', text: 'a' }])
    expect(message.source).toEqual({ kind: 'user', tags: ['x'] })
    expect(Object.isFrozen(message)).toBe(true)
    expect(Object.isFrozen(message.content)).toBe(true)
    expect(Object.isFrozen(message.content[0])).toBe(true)
    expect(Object.isFrozen(message.source)).toBe(true)
    expect(() => {
      ;(message as { id: string }).id = 'other'
    }).toThrow(TypeError)
    expect(() => {
      ;(message.content[0] as { text: string }).text = 'x'
    }).toThrow(TypeError)
  })

  it('an already made message passes through toUserMessage unchanged (same object)', () => {
    const message = msg('hi')
    expect(toUserMessage(message)).toBe(message)
  })

  it('a plain object of the right shape is validated, copied and frozen', () => {
    const input = { id: 'p', role: 'user', content: [{ type: 'text', text: 't' }], source: { kind: 'user' } }
    const message = toUserMessage(input)
    expect(message).toEqual(input)
    expect(message).not.toBe(input)
    expect(Object.isFrozen(message.content)).toBe(true)
  })

  const valid = { id: 'x', role: 'user', content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } }
  it.each<[string, unknown, RegExp]>([
    ['null', null, /got null/],
    ['a number', 5, /got number/],
    ['an array', [valid], /got an array/],
    ['a missing id', { ...valid, id: undefined }, /"id"/],
    ['an empty id', { ...valid, id: '' }, /"id"/],
    ['role assistant', { ...valid, role: 'assistant' }, /"role" must be "user"/],
    ['empty content', { ...valid, content: [] }, /"content" must be a non-empty array/],
    ['content that is a string', { ...valid, content: 'x' }, /"content"/],
    ['an unknown block type', { ...valid, content: [{ type: 'audio', data: 'x' }] }, /content\[0\] has unknown type "audio"/],
    ['a text block without text', { ...valid, content: [{ type: 'text' }] }, /content\[0\]/],
    ['an image block without data', { ...valid, content: [{ type: 'image', mediaType: 'image/png' }] }, /content\[0\]/],
    ['a missing source', { ...valid, source: undefined }, /"source" must be an object/],
    ['a source without kind', { ...valid, source: { user: 'ada' } }, /"source.kind"/],
    ['an extra field', { ...valid, priority: 1 }, /unknown field "priority"/],
  ])('toUserMessage refuses %s with INVALID_MESSAGE saying what is wrong', (_case, input, reason) => {
    const error = thrown(() => toUserMessage(input, 'followup input'))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.message).toMatch(reason)
    expect(error.message).toContain('Invalid followup input')
  })

  it.each<[string, () => UserMessage]>([
    ['no blocks', () => createUserMessage([])],
    ['an unknown block type', () => createUserMessage([{ type: 'video' } as never])],
    ['an empty id', () => createUserMessage('x', { id: '' })],
    ['a source without kind', () => createUserMessage('x', { source: {} as never })],
  ])('createUserMessage refuses %s with INVALID_MESSAGE', (_case, make) => {
    expect(thrown(make).code).toBe('INVALID_MESSAGE')
  })

  it('toUserMessage validates deep-frozen JSON that is not a message (e.g. the data of another event)', () => {
    const session = new Session(header)
    const notAMessage = session.append('x-plugin/note', { id: 'n1', role: 'user', note: 'not content' }).data
    expect(thrown(() => toUserMessage(notAMessage)).code).toBe('INVALID_MESSAGE')
  })
})

describe('formatTimeline', () => {
  it('renders one compact line per event; chunks only on request; long text cut', () => {
    const session = new Session(header, [], { now: () => 0 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [msg('hello there')] })
    session.append('turn/start', { turn: 1 })
    session.append('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    session.append('step/start', { turn: 1, step: 1 })
    session.append('user/message', createUserMessage('the map', { id: 'c', source: { kind: 'plugin' } }))
    session.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', text: 'Hi' } })
    session.append('assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'Hi' }] } })
    session.append('step/end', { turn: 1, step: 1, finish: 'stop' })
    session.append('agent/inbox/spliced', { target: 'next-step', start: 0, removedCount: 2, inserted: [], outcome: 'canceled' })
    session.append('turn/end', { turn: 1, reason: { kind: 'aborted', reason: 'canceled' } })
    session.append('x-plugin/note', { a: 1 })
    expect(formatTimeline(session.events)).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hello there"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "the map" (plugin)
      assistant/message "Hi"
      step/end 1.1 stop
      splice next-step @0 -2 canceled
      turn/end 1 aborted (canceled)
      x-plugin/note {"a":1}"
    `)
    expect(formatTimeline(session.events.slice(5, 6), { chunks: true })).toBe('assistant/chunk {"type":"text-delta","text":"Hi"}')
    expect(formatTimeline(session.events.slice(0, 1), { maxText: 5 })).toBe('splice next-turn @0 +["hello…"]')
  })
})
