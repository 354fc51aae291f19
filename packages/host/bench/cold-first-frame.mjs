#!/usr/bin/env node
/**
 * Time to first frame of a cold session's stream: a 5,000-turn session (40,000 events, the
 * browser test's: tests/web/big-session-events.mjs) written into a JSONL store, then streamed by a fresh in-process host per round (so the session
 * is cold and the file not cached by the host): `GET …/stream` from seq 0 and from the last seq
 * (a reconnect at the end). Reports, per round, the store's whole `read` alone and, for each
 * stream, the response (headers), the first frame (the hello) and the last event. Given several
 * builds of the host (their `dist` folders), each round runs them all, the order alternating.
 * Wall time, a side measurement for docs/host.md, never asserted.
 *
 *   node packages/host/bench/cold-first-frame.mjs [rounds=5] [hostDist=packages/host/dist ...]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { bigSessionEvents } from '../../../tests/web/big-session-events.mjs'

const rounds = Number(process.argv[2] ?? 5)
const dists = process.argv.length > 3 ? process.argv.slice(3) : ['packages/host/dist']
const builds = []
for (const dist of dists) builds.push({ dist, createHost: (await import(pathToFileURL(join(resolve(dist), 'index.js')).href)).createHost, rows: [] })

const dir = mkdtempSync(join(tmpdir(), 'cold-first-frame-'))
const id = 'big'
const events = bigSessionEvents(5_000)
{
  const store = jsonlStore({ dir })
  const created = await store.create({ id, version: 1, createdAt: Date.now() }, events)
  await created.writer.close()
  await store.close()
}
const last = events.length - 1

async function stream(createHost, after) {
  const host = createHost({ store: jsonlStore({ dir }), agentFactory: () => { throw new Error('a cold stream builds no agent') } })
  const started = performance.now()
  const response = await host.fetch(new Request(`http://127.0.0.1/v1/sessions/${id}/stream?after=${after}&chunks=false`))
  const answered = performance.now() - started
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let first
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    first ??= performance.now() - started
    text += decoder.decode(value, { stream: true })
    if (after === last ? text.includes('event: hello') : text.includes(`id: ${last}\n`)) break
  }
  const end = performance.now() - started
  await reader.cancel()
  await host.close()
  return { answered, first, end }
}

async function readAlone() {
  const store = jsonlStore({ dir })
  const started = performance.now()
  const read = await store.read(id)
  const took = performance.now() - started
  if (read.events.length !== events.length) throw new Error('short read')
  await store.close()
  return took
}

const f = (ms) => `${ms.toFixed(0)} ms`
for (let round = 0; round < rounds; round += 1) {
  const read = await readAlone()
  for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
    const row = { read, fromStart: await stream(build.createHost, -1), fromEnd: await stream(build.createHost, last) }
    build.rows.push(row)
    console.log(`round ${round + 1}, ${build.dist} (load ${loadavg()[0].toFixed(1)}): store.read ${f(row.read)}; from seq 0: answered ${f(row.fromStart.answered)}, hello ${f(row.fromStart.first)}, last event ${f(row.fromStart.end)}; from the last seq: answered ${f(row.fromEnd.answered)}, hello ${f(row.fromEnd.first)}`)
  }
}
for (const { dist, rows } of builds) {
  const spread = (pick) => {
    const values = rows.map(pick).sort((a, b) => a - b)
    return `${values[Math.floor(values.length / 2)].toFixed(0)} ms (${values[0].toFixed(0)}–${values.at(-1).toFixed(0)})`
  }
  console.log(`${dist}: median (min–max) over ${rounds} rounds, ${events.length} events: store.read ${spread((r) => r.read)}; from seq 0: hello ${spread((r) => r.fromStart.first)}, last event ${spread((r) => r.fromStart.end)}; from the last seq: hello ${spread((r) => r.fromEnd.first)}`)
}
rmSync(dir, { recursive: true, force: true })
