// A session's history as a store reads it back from disk (the JSONL store's reader: each event
// parsed, deep-frozen in place, its short strings shared with the other events' through
// `freezeParsedJson(event, { mark: false })`). Figure 6 and memory-breakdown.mjs load their idle
// sessions with it, so that what they measure is what a reopened session holds. A core built
// before `internString` existed (BENCH_CORE of an older ref) gets that build's reader: a deep
// freeze, each string its own copy.

/** `json`: the history as one JSON array; `core`: the @bosun/core module in use. */
export function storedLog(json, core) {
  const events = JSON.parse(json)
  const freeze = storeFreeze(core)
  for (const event of events) freeze(event)
  return events
}

/** What the JSONL reader of `core`'s build does to each parsed event line. */
export function storeFreeze(core) {
  return core.internString === undefined ? deepFreeze : (event) => core.freezeParsedJson(event, { mark: false })
}

function deepFreeze(value) {
  if (typeof value === 'object' && value !== null) for (const key in value) deepFreeze(value[key])
  return Object.freeze(value)
}
