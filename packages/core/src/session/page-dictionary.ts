/**
 * The preset dictionary of sealed log pages (zlib's `dictionary`): the skeletons of the core's
 * own events, so that a page's first occurrence of `{"seq":…,"type":"assistant/chunk","data":…`
 * is already a back-reference. Small pages gain the most (a short last page, 256 events): on
 * figure 6's history, 25–30% fewer bytes than without (docs/benchmarks.md, section 6, goal 2).
 *
 * Pages live in this process's memory only, never on disk or on the wire, so the text may change
 * between releases freely; deflate and inflate must use the same one. Generic on purpose: no
 * tool, model or benchmark names. zlib prefers the most frequent strings last.
 */
const SKELETONS = [
  '{"seq":0,"time":0,"type":"request/context","data":{"system":"","tools":[{"name":"","description":"","parameters":{"type":"object","properties":{},"required":[]}}]}}',
  '{"seq":0,"time":0,"type":"agent/inbox/spliced","data":{"target":"next-step","start":0,"removedCount":1,"inserted":[],"outcome":"moved"}}',
  '{"seq":0,"time":0,"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}',
  '{"seq":0,"time":0,"type":"tool/result","data":{"turn":1,"step":1,"callId":"call_","name":"","content":[{"type":"text","text":""}]}}',
  '{"seq":0,"time":0,"type":"tool/call","data":{"turn":1,"step":1,"callId":"call_","name":"","arguments":"{\\"}}',
  '{"seq":0,"time":0,"type":"assistant/message","data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"tool-call","id":"call_","name":"","arguments":"{\\"}]}}}',
  '{"seq":0,"time":0,"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"call_","name":""}}}',
  '{"seq":0,"time":0,"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"argumentsDelta":"{\\"}}}',
  '{"seq":0,"time":0,"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"id":"","role":"user","content":[{"type":"text","text":""}],"source":{"kind":"user","delivery":"followup"}}]}}',
  '{"seq":0,"time":0,"type":"user/message","data":{"id":"","role":"user","content":[{"type":"text","text":""}],"source":{"kind":"user","delivery":"followup"}}}',
  '{"seq":0,"time":0,"type":"turn/start","data":{"turn":1}}',
  '{"seq":0,"time":0,"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}}',
  '{"seq":0,"time":0,"type":"request/header","data":{"turn":1,"step":1,"adapter":"","messageCount":1,"tools":[]}}',
  '{"seq":0,"time":0,"type":"step/start","data":{"turn":1,"step":1}}',
  '{"seq":0,"time":0,"type":"step/end","data":{"turn":1,"step":1,"finish":"tool-calls"}}',
  '{"seq":0,"time":0,"type":"assistant/message","data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":""}]}}}',
  '{"seq":0,"time":0,"type":"step/end","data":{"turn":1,"step":1,"finish":"stop"}}',
  '{"seq":0,"time":0,"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":"tool-calls"}}}',
  '{"seq":0,"time":0,"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":"stop"}}}',
  '{"seq":0,"time":0,"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"text-delta","text":""}}}',
]

export const PAGE_DICTIONARY: Buffer = Buffer.from(SKELETONS.join(','), 'utf8')
