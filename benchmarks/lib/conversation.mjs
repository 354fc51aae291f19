// The scripted conversation every contender runs. One turn = a user message, model step 1 (one
// tool call, `lookup({"key":"k"})`, id+name in one delta and the arguments in another), the tool
// call (`value of k`), model step 2 (the answer: `chunks` text deltas of `chunkSize` characters
// each, then a finish). The model answers instantly: every mock yields chunks prepared in advance,
// unless `pace` spaces the answer's deltas (figure 3b): each delta then arrives in its own
// macrotask, as a network stream delivers them — `'immediate'`: after a `setImmediate` (the loop
// goes round once, nothing waits); `'timer'`: after a `setTimeout(1)` (a model emitting ~1 delta
// per millisecond).

export const TOOL_NAME = 'lookup'
export const TOOL_DESCRIPTION = 'Looks a key up.'
export const TOOL_ARGS_JSON = '{"key":"k"}'
export const toolResult = (key) => `value of ${key}`

/** The answer's text deltas. */
export function answerDeltas(chunks = 10, chunkSize = 10) {
  const deltas = []
  for (let i = 0; i < chunks; i++) deltas.push(String.fromCharCode(97 + (i % 26)).repeat(chunkSize))
  return deltas
}

/** Options of one measurement, from the child's argv. */
export function conversationOptions(o) {
  return { chunks: o.chunks ?? 10, chunkSize: o.chunkSize ?? 10, pace: o.pace }
}

const PACES = {
  immediate: () => new Promise((resolve) => setImmediate(resolve)),
  timer: () => new Promise((resolve) => setTimeout(resolve, 1)),
}

/** What a mock awaits before each answer delta: undefined when the answer is not paced. */
export function pacer(pace) {
  if (pace === undefined) return undefined
  const wait = PACES[pace]
  if (!wait) throw new Error(`unknown pace "${pace}" (immediate | timer)`)
  return wait
}
