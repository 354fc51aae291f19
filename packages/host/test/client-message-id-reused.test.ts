import { expect, it, onTestFinished } from 'vitest'
import type { Host } from '../src/index.js'
import { json, makeHost, req, stepGate, tempDir, waitFor } from './helpers.js'

// A clientMessageId names one message: a send under an id the session admitted with other content
// or delivery is 422 client-message-id-reused (it was answered the first receipt, duplicate: true,
// and its text dropped without a word). A retry is compared with what was admitted under the id —
// not with the message as a PATCH left it — and stays a plain duplicate, also after a restart.

const send = (host: Host, body: object) => req(host, 'POST', '/v1/sessions/s/messages', body)

it('a send under an admitted id with other content or delivery is 422; a retry after an edit is a duplicate', async () => {
  const { dir, cleanup } = await tempDir()
  const gate = stepGate()
  // The host open now: closed (then its store) when the test ends, however it ends.
  let { host, store } = makeHost(dir, () => [{ text: 'one' }, { text: 'two' }], {}, [gate.plugin])
  onTestFinished(async () => {
    await host.close()
    await store.close()
    await cleanup()
  })
  await req(host, 'POST', '/v1/sessions', { id: 's' })
  await send(host, { clientMessageId: 'c-1', content: 'first' })
  await waitFor(() => gate.waiting === 1, 15_000, 'the first turn held at its step')
  const first = await json(send(host, { clientMessageId: 'c-2', content: 'hello' }))
  expect(first).toMatchObject({ duplicate: false, lane: 'next-turn', position: 0 })
  expect((await req(host, 'PATCH', '/v1/sessions/s/inbox/c-2', { content: 'hello, edited' })).status).toBe(200)

  // The retry of the send as it was sent: the first receipt, though the queued message was edited.
  const retry = await send(host, { clientMessageId: 'c-2', content: 'hello' })
  expect(retry.status).toBe(202)
  expect(await json(retry)).toMatchObject({ messageId: 'c-2', duplicate: true, seq: first.seq, delivery: 'followup' })
  // A string and its one text block are the same content.
  expect(await json(send(host, { clientMessageId: 'c-2', content: [{ type: 'text', text: 'hello' }], delivery: 'followup' }))).toMatchObject({ duplicate: true, seq: first.seq })

  for (const [body, differs] of [
    [{ clientMessageId: 'c-2', content: 'something else' }, ['content']],
    // The edited text is not what was admitted under the id either.
    [{ clientMessageId: 'c-2', content: 'hello, edited' }, ['content']],
    [{ clientMessageId: 'c-2', content: 'hello', delivery: 'steer' }, ['delivery']],
    [{ clientMessageId: 'c-2', content: 'else', delivery: 'inject' }, ['content', 'delivery']],
  ] as const) {
    const refused = await send(host, body)
    expect(refused.status).toBe(422)
    const { error } = await json(refused)
    expect(error).toMatchObject({ code: 'client-message-id-reused', details: { path: '/clientMessageId', messageId: 'c-2', differs } })
    expect(error.message).toContain('"c-2"')
    expect(error.message).toContain('new clientMessageId')
    expect(error.message).not.toContain(body.content)
  }
  // The AI SDK chat route admits its last message the same way.
  const chat = await req(host, 'POST', '/v1/ai-sdk/chat', { id: 's', messages: [{ id: 'c-2', role: 'user', parts: [{ type: 'text', text: 'a chat text' }] }] })
  expect(chat.status).toBe(422)
  expect((await json(chat)).error).toMatchObject({ code: 'client-message-id-reused', details: { differs: ['content'] } })
  // Nothing was admitted: the queue holds c-2 once, as edited.
  const snap = await json(req(host, 'GET', '/v1/sessions/s'))
  expect(snap.inbox['next-turn']).toEqual([expect.objectContaining({ id: 'c-2' })])
  expect(snap.inbox['next-step']).toEqual([])

  gate.open()
  await waitFor(async () => {
    const s = await json(req(host, 'GET', '/v1/sessions/s'))
    return s.status === 'idle' && s.inbox['next-turn'].length === 0
  }, 15_000, 'both turns ran')
  await host.close()
  await store.close()

  // A new host reads the admission from the JSONL log.
  ;({ host, store } = makeHost(dir))
  expect(await json(send(host, { clientMessageId: 'c-2', content: 'hello' }))).toMatchObject({ duplicate: true, seq: first.seq })
  const after = await send(host, { clientMessageId: 'c-2', content: 'hello again' })
  expect(after.status).toBe(422)
  expect((await json(after)).error.code).toBe('client-message-id-reused')
})
