// The host under load (issue 16): a real host (createHost + listen, as `bosun serve` runs it) on
// 127.0.0.1 in a child process, a JSONL store in a temporary directory and the scripted model;
// this process opens SSE subscribers over real sockets and sends prompts at a fixed rate
// (open loop: a prompt is sent on schedule whether or not the previous ones were answered).
// It reports log events per second, admission latency (POST → 202), delivery lag (an event's
// `time` → its frame read by a subscriber) and verifies that nothing was lost: every subscriber
// saw every seq of its session exactly once, in order, and every admitted message ran in a
// completed turn (a prompt that got no HTTP answer is looked up in the log: if the host admitted
// it, it must have run too; if not, it is a send failure, reported, not lost). A benchmark, not
// a test: it asserts no timing (host-load.test.ts runs it for two seconds and checks only the
// verdict). Uses the built packages (`pnpm build` first).
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'

const USAGE = `Usage: node benchmarks/host-load.mjs [options]

  --duration <s>      seconds of load (default 60)
  --rate <n>          prompts per second, spread round-robin over the sessions (default 50)
  --subscribers <n>   SSE subscribers, spread round-robin over the sessions (default 200)
  --sessions <n>      sessions (default 10)
  --store <kind>      jsonl (default: durable files in a temporary directory) or memory
  --json              print one JSON line with every number and the verdict
  --help, -h          this text

Exit code 0 when nothing was lost, 1 when something was, 2 on a bad argument.`

const OPTIONS = {
  duration: { type: 'string', default: '60' },
  rate: { type: 'string', default: '50' },
  subscribers: { type: 'string', default: '200' },
  sessions: { type: 'string', default: '10' },
  store: { type: 'string', default: 'jsonl' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  serve: { type: 'string' }, // internal: the host child (its store kind and directory)
}

function parse(argv) {
  let values
  try {
    ;({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }))
  } catch (error) {
    console.error(`${error.message}\n\n${USAGE}`)
    process.exit(2)
  }
  if (values.help) {
    console.log(USAGE)
    process.exit(0)
  }
  const positive = (name, integer) => {
    const value = Number(values[name])
    if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      console.error(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(values[name])}.\n\n${USAGE}`)
      process.exit(2)
    }
    return value
  }
  if (values.store !== 'jsonl' && values.store !== 'memory') {
    console.error(`--store must be "jsonl" or "memory", got ${JSON.stringify(values.store)}.\n\n${USAGE}`)
    process.exit(2)
  }
  return {
    duration: positive('duration', false), rate: positive('rate', false), subscribers: positive('subscribers', true),
    sessions: positive('sessions', true), store: values.store, json: values.json, serve: values.serve,
  }
}

const ANSWER = 'The host answered this prompt in a few streamed chunks of text.'

/** The host child: serves until told to stop, then closes (flushing every session). */
async function serve(spec) {
  const { kind, dir } = JSON.parse(spec)
  const { createHost, listen } = await import('@bosun/host')
  const { createAgent, memoryStore } = await import('@bosun/core')
  const { scripted } = await import('@bosun/adapter-scripted')
  const { jsonlStore } = await import('@bosun/plugin-store-jsonl')
  const store = kind === 'memory' ? memoryStore() : jsonlStore({ dir })
  const answer = () => ({ text: ANSWER, chunkSize: 8 })
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 100_000 }, () => answer) }), store, sessionId }),
  })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  // How long the host's event loop was held up (a saturated loop shows in every figure).
  const delay = monitorEventLoopDelay({ resolution: 10 })
  process.on('message', async (message) => {
    if (message === 'delay-start') delay.enable()
    if (message === 'delay-report') {
      delay.disable()
      process.send({ delay: loopDelay(delay) })
    }
    if (message !== 'stop') return
    await server.close({ graceMs: 1000 })
    await store.close()
    process.exit(0)
  })
  process.send({ url: server.url })
}

/**
 * Event-loop delay in ms from a `monitorEventLoopDelay` histogram (nanoseconds, sampled every
 * 10 ms): how much later than due a 10 ms timer ran, so 0 is an idle loop.
 */
const loopDelay = (h) => {
  const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - 10) * 100) / 100)
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function percentile(sorted, p) {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const summary = (values) => {
  const sorted = Float64Array.from(values).sort()
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.length ? sorted[sorted.length - 1] : null }
}

async function poll(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(100)
  }
}

/**
 * One SSE subscriber: reads a session's frames from seq 0, checking that seqs arrive contiguous,
 * once each, and sampling the lag of each event (its `time` is the host's clock at append; both
 * processes read the same clock).
 */
function subscribe(url, id, lags) {
  const state = { id, next: 0, gaps: 0, duplicates: 0, frames: 0, hello: false, error: undefined }
  const controller = new AbortController()
  const decoder = new TextDecoder()
  const run = async () => {
    const response = await fetch(`${url}/v1/sessions/${id}/stream`, { signal: controller.signal })
    if (response.status !== 200) throw new Error(`stream of ${id} answered ${response.status}`)
    let buffer = ''
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true })
      let end
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (frame.startsWith('event: hello') || frame.startsWith('retry:')) state.hello = true
        if (!frame.startsWith('event: session.event')) continue
        const now = Date.now()
        // `event:`, `id:`, `data: {"seq":…,"time":…` — read without parsing the whole event.
        const match = /\nid: (\d+)\ndata: \{"seq":\d+,"time":(\d+)/.exec(frame)
        if (!match) throw new Error(`unexpected frame: ${frame.slice(0, 120)}`)
        const seq = Number(match[1])
        if (seq < state.next) state.duplicates++
        else {
          if (seq > state.next) state.gaps += seq - state.next
          state.next = seq + 1
        }
        state.frames++
        lags.push(now - Number(match[2]))
      }
    }
  }
  state.done = run().catch((error) => {
    if (!controller.signal.aborted) state.error = String(error)
  })
  state.stop = () => controller.abort()
  return state
}

async function drive(options) {
  const dir = options.store === 'jsonl' ? mkdtempSync(join(tmpdir(), 'bosun-host-load-')) : undefined
  const child = fork(fileURLToPath(import.meta.url), ['--serve', JSON.stringify({ kind: options.store, dir })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    const { url } = await new Promise((resolve, reject) => {
      child.once('message', resolve)
      child.once('exit', (code) => reject(new Error(`the host child exited with ${code} before listening`)))
    })
    const call = async (method, path, body) => {
      const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
      return { status: response.status, body: await response.json() }
    }
    const ids = Array.from({ length: options.sessions }, (_, i) => `load-${i}`)
    for (const id of ids) {
      const created = await call('POST', '/v1/sessions', { id })
      if (created.status !== 201) throw new Error(`creating ${id} answered ${created.status}`)
    }
    const lags = []
    const subscribers = Array.from({ length: options.subscribers }, (_, i) => subscribe(url, ids[i % ids.length], lags))
    await poll(() => subscribers.every((s) => s.hello || s.error), 60_000, 'every subscriber\'s hello')

    const load = loadavg()
    child.send('delay-start')
    const driverDelay = monitorEventLoopDelay({ resolution: 10 })
    driverDelay.enable()
    const total = Math.max(1, Math.round(options.rate * options.duration))
    const admission = []
    const admitted = []
    const refused = []
    const failed = []
    const pending = []
    const start = performance.now()
    const startedAt = Date.now()
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / options.rate
      const wait = due - performance.now()
      if (wait > 1) await sleep(wait)
      const id = ids[i % ids.length]
      const messageId = `m${i}`
      const sent = performance.now()
      pending.push(call('POST', `/v1/sessions/${id}/messages`, { clientMessageId: messageId, content: `prompt ${i}` }).then(
        (answer) => {
          admission.push(performance.now() - sent)
          if (answer.status === 202 && answer.body.messageId === messageId) admitted.push({ id, messageId })
          else refused.push({ id, messageId, status: answer.status, error: answer.body.error?.code })
        },
        // No answer (e.g. a connect timeout on a saturated machine): the host may still have
        // admitted it — checked below against the log.
        (error) => failed.push({ id, messageId, error: String(error.cause?.code ?? error.cause?.message ?? error) }),
      ))
    }
    const sendSeconds = (performance.now() - start) / 1000
    await Promise.all(pending)
    // The load ends when every session has answered everything it admitted.
    let sessions = []
    await poll(async () => {
      sessions = (await call('GET', '/v1/sessions')).body.sessions.filter((s) => ids.includes(s.id))
      return sessions.every((s) => s.status === 'idle' && s.queue && s.queue['next-turn'] === 0 && s.queue['next-step'] === 0)
    }, 600_000, 'every session to finish its turns')
    const loadSeconds = (Date.now() - startedAt) / 1000
    driverDelay.disable()
    const hostDelay = await new Promise((resolve) => {
      const onMessage = (message) => {
        if (message?.delay === undefined) return
        child.off('message', onMessage)
        resolve(message.delay)
      }
      child.on('message', onMessage)
      child.send('delay-report')
    })
    const lastSeq = new Map(sessions.map((s) => [s.id, s.lastSeq]))
    // Every subscriber catches up with the end of its session's log (or the wait times out, and
    // the gap is reported as lost).
    await poll(() => subscribers.every((s) => s.error || s.next > lastSeq.get(s.id)), 120_000, 'every subscriber to catch up').catch(() => {})
    for (const s of subscribers) s.stop()
    await Promise.all(subscribers.map((s) => s.done))

    // A prompt that got no answer either was never admitted (the log has no such message) or was
    // admitted without its receipt reaching the client: then it must have run like the others.
    const admittedWithoutReceipt = []
    for (const f of failed) {
      const { status } = await call('GET', `/v1/sessions/${f.id}/messages/${f.messageId}`)
      if (status === 200) admittedWithoutReceipt.push(f)
    }
    admitted.push(...admittedWithoutReceipt)
    // Every admitted message ran in a turn that completed.
    const unanswered = []
    for (let i = 0; i < admitted.length; i += 16) {
      await Promise.all(admitted.slice(i, i + 16).map(async ({ id, messageId }) => {
        const { body } = await call('GET', `/v1/sessions/${id}/messages/${messageId}`)
        if (!(body.state === 'claimed' && body.stepped === true && body.turnEnd === 'completed')) unanswered.push({ id, messageId, status: body })
      }))
    }
    const events = [...lastSeq.values()].reduce((sum, last) => sum + last + 1, 0)
    const frames = subscribers.reduce((sum, s) => sum + s.frames, 0)
    const behind = subscribers.filter((s) => s.next <= lastSeq.get(s.id)).map((s) => ({ id: s.id, missing: lastSeq.get(s.id) + 1 - s.next }))
    const subscriberErrors = subscribers.filter((s) => s.error).map((s) => s.error)
    const gaps = subscribers.reduce((sum, s) => sum + s.gaps, 0)
    const duplicates = subscribers.reduce((sum, s) => sum + s.duplicates, 0)
    const nothingLost = refused.length === 0 && unanswered.length === 0 && behind.length === 0 && subscriberErrors.length === 0 && gaps === 0 && duplicates === 0
    return {
      options: { duration: options.duration, rate: options.rate, subscribers: options.subscribers, sessions: options.sessions, store: options.store },
      machine: { cpus: cpus().length, loadavgBefore: load.map((l) => Math.round(l * 100) / 100), loadavgAfter: loadavg().map((l) => Math.round(l * 100) / 100), node: process.version },
      prompts: { sent: total, admitted: admitted.length, admittedWithoutReceipt: admittedWithoutReceipt.length, sendFailures: failed.length, sendFailureCauses: [...new Set(failed.map((f) => f.error))].slice(0, 5), sendSeconds: Math.round(sendSeconds * 100) / 100, achievedRate: Math.round((total / sendSeconds) * 10) / 10 },
      admissionMs: round(summary(admission)),
      throughput: { loadSeconds: Math.round(loadSeconds * 100) / 100, logEvents: events, logEventsPerSecond: Math.round(events / loadSeconds), framesDelivered: frames, framesPerSecond: Math.round(frames / loadSeconds) },
      deliveryLagMs: round(summary(lags)),
      eventLoopDelayMs: { host: hostDelay, driver: loopDelay(driverDelay) },
      verdict: { nothingLost, refused: refused.slice(0, 5), refusedCount: refused.length, unanswered: unanswered.slice(0, 5), unansweredCount: unanswered.length, subscribersBehind: behind.slice(0, 5), subscriberErrors: subscriberErrors.slice(0, 5), gaps, duplicates },
    }
  } finally {
    if (child.exitCode === null) child.send('stop')
    await Promise.race([exited, sleep(15_000)])
    if (child.exitCode === null) child.kill()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }
}

function round(s) {
  const r = (v) => (v === null ? null : Math.round(v * 100) / 100)
  return { count: s.count, p50: r(s.p50), p99: r(s.p99), max: r(s.max) }
}

function print(result) {
  const { options: o, prompts: p, admissionMs: a, throughput: t, deliveryLagMs: l, verdict: v, machine: m } = result
  console.log(`host load: ${o.subscribers} SSE subscribers, ${o.rate} prompts/s for ${o.duration} s over ${o.sessions} sessions (${o.store} store)`)
  console.log(`  machine          ${m.cpus} CPUs, load average ${m.loadavgBefore.join(' / ')} before, ${m.loadavgAfter.join(' / ')} after; Node ${m.node}`)
  console.log(`  prompts          ${p.sent} sent in ${p.sendSeconds} s (${p.achievedRate}/s), ${p.admitted} admitted (${p.admittedWithoutReceipt} of them without a receipt); ${p.sendFailures} got no answer${p.sendFailures ? ` (${p.sendFailureCauses.join(', ')})` : ''}`)
  console.log(`  admission        p50 ${a.p50} ms, p99 ${a.p99} ms, max ${a.max} ms`)
  console.log(`  log events       ${t.logEvents} in ${t.loadSeconds} s: ${t.logEventsPerSecond}/s; frames delivered ${t.framesDelivered}: ${t.framesPerSecond}/s`)
  console.log(`  delivery lag     p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms`)
  const d = result.eventLoopDelayMs
  console.log(`  event-loop delay host p50 ${d.host.p50} / p99 ${d.host.p99} / max ${d.host.max} ms; load generator p50 ${d.driver.p50} / p99 ${d.driver.p99} / max ${d.driver.max} ms`)
  console.log(`  nothing lost     ${v.nothingLost ? 'yes' : `NO — ${JSON.stringify(v)}`}`)
}

const options = parse(process.argv.slice(2))
if (options.serve !== undefined) {
  await serve(options.serve)
} else {
  const result = await drive(options)
  if (options.json) console.log(JSON.stringify(result))
  else print(result)
  process.exitCode = result.verdict.nothingLost ? 0 : 1
}
