/**
 * The events of a long session: `turns` completed turns of the shape a real one has (admission
 * splice, turn/start, claim, step/start, user/message, assistant/message of 100–400 characters
 * with usage, step/end, turn/end), 7 ms apart. Plain JavaScript so that Node scripts
 * (packages/host/bench/cold-first-frame.mjs) share it with the browser test (big-session.ts).
 */
export function bigSessionEvents(turns, startTime = Date.now() - turns * 1000) {
  const events = []
  let time = startTime
  const push = (type, data) => {
    time += 7
    events.push({ seq: events.length, time, type, data })
  }
  for (let turn = 1; turn <= turns; turn += 1) {
    const message = { id: `m-${turn}`, role: 'user', content: [{ type: 'text', text: `Question number ${turn}: what does the bosun check next?` }], source: { kind: 'user' } }
    push('agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [message] })
    push('turn/start', { turn })
    push('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    push('step/start', { turn, step: 1 })
    push('user/message', message)
    const text = `Answer ${turn}. The bosun checks the rigging, the anchors and the boats, and reports to the mate. `.repeat(1 + (turn % 4))
    push('assistant/message', { turn, step: 1, message: { role: 'assistant', content: [{ type: 'text', text }] }, usage: { inputTokens: 40 + turn, outputTokens: text.length / 4 } })
    push('step/end', { turn, step: 1, finish: 'stop' })
    push('turn/end', { turn, reason: { kind: 'completed' } })
  }
  return events
}
