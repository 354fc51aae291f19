#!/usr/bin/env node
/**
 * A/B of the web UI's fold, in Node: the browser test's 5,000-turn replay (40,000 events, no
 * chunks: big-session-events.mjs) folded into the view in batches, by two trees'
 * `packages/web/app/state/*.ts` (transpiled with the repo's TypeScript into a temp folder),
 * alternating the order each round. Wall time: a side
 * measurement for docs/benchmarks.md ("The web UI"), never asserted.
 *
 *   git archive <commit> packages/web/app/state | tar -x -C /tmp/before
 *   node tests/web/fold-ab.mjs /tmp/before . [rounds=5] [batch=100]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bigSessionEvents } from './big-session-events.mjs'

const [a, b, roundsArg = '5', batchArg = '100'] = process.argv.slice(2)
if (a === undefined || b === undefined) throw new Error('usage: node tests/web/fold-ab.mjs <tree A> <tree B> [rounds] [batch]')
const rounds = Number(roundsArg)
const batch = Number(batchArg)
const ts = createRequire(join(process.cwd(), 'packages/web/package.json'))('typescript')

async function load(tree) {
  const from = join(resolve(tree), 'packages/web/app/state')
  const to = mkdtempSync(join(tmpdir(), 'fold-ab-'))
  mkdirSync(to, { recursive: true })
  writeFileSync(join(to, 'package.json'), '{"type":"module"}')
  for (const file of readdirSync(from).filter((name) => name.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(from, file), 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    writeFileSync(join(to, file.replace(/\.ts$/, '.js')), outputText)
  }
  return import(pathToFileURL(join(to, 'fold.js')).href)
}

const builds = [['A', await load(a)], ['B', await load(b)]]
const frames = bigSessionEvents(5_000, 1_764_000_000_000).map((data) => ({ event: 'session.event', data }))
const times = { A: [], B: [] }
for (let round = 0; round < rounds; round += 1) {
  for (const [name, { foldFrames, emptySession }] of round % 2 === 0 ? builds : [...builds].reverse()) {
    const start = performance.now()
    let view = emptySession()
    for (let i = 0; i < frames.length; i += batch) view = foldFrames(view, frames.slice(i, i + batch))
    times[name].push(performance.now() - start)
    if (view.lastSeq !== frames.length - 1) throw new Error(`${name} did not fold the whole replay`)
  }
}
for (const [name] of builds) {
  const sorted = times[name].sort((x, y) => x - y)
  console.log(`${name} (${name === 'A' ? a : b}): median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms (${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)}), ${rounds} rounds, batches of ${batch} frames`)
}
