// Shared by the report files: number formats, the machine and versions lines, the "Command:" line
// of a region, and splicing the generated markdown into docs/benchmarks.md (between the peers
// markers; nothing outside them is touched).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { join } from 'node:path'
import { here } from './children.mjs'

export const f = (ms) => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3))
export const ratio = (x, base) => `${(x / base).toFixed(x / base >= 10 ? 0 : 1)}×`
/** "median (min–max)" of a { median, min, max } over rounds (one round: the value). */
export const sp = (s, fmt = f) => (s.min === s.max ? fmt(s.median) : `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`)
export const kb = (b) => (b / 1024).toFixed(1)
export const mb = (b) => (b / 2 ** 20).toFixed(1)
export const n = (x) => x.toLocaleString('en')

export const machine = () => {
  const cpus = os.cpus()
  return `${cpus.length} × ${cpus[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}; Node.js ${process.version}`
}

export function versions() {
  const root = join(here, '..')
  const req = createRequire(join(here, 'package.json'))
  const pkgs = ['@mariozechner/pi-agent-core', '@mariozechner/pi-ai', 'ai', '@langchain/langgraph', '@langchain/core', '@langchain/langgraph-checkpoint-sqlite', 'better-sqlite3', 'zod']
  const v = {}
  for (const p of pkgs) {
    try {
      const main = p === 'better-sqlite3' ? createRequire(req.resolve('@langchain/langgraph-checkpoint-sqlite')).resolve('better-sqlite3/package.json') : join(here, 'node_modules', p, 'package.json')
      v[p] = JSON.parse(readFileSync(main, 'utf8')).version
    } catch { v[p] = '?' }
  }
  v['@bosun/core'] = `workspace (git ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim()} + working tree)`
  return Object.entries(v).map(([k, x]) => `\`${k}\` ${x}`).join(', ')
}

/** What every stored figure carries: which command produced it, when, how long, how many rounds. */
export const runMeta = ({ command, rounds, ms }) => ({ command, date: new Date().toISOString().slice(0, 10), rounds, seconds: Math.round(ms / 1000), machine: machine() })

export const roundsText = (rounds) => (rounds === 1 ? 'one round' : `${rounds} interleaved rounds`)
export const commandLine = (run, what, why = '') => `Command: \`${run.command}\`${what ? ` (${what})` : ''}. Run of ${run.date}, ${n(run.seconds)} s for this figure, ${roundsText(run.rounds)}${why}. Machine: ${run.machine}.`
/** Says where a `--long` cell comes from. */
export const longTag = (long) => `from the \`--long\` run of ${long.run.date}, ${roundsText(long.run.rounds)}`

const PEERS_RE = /<!-- peers:start -->[\s\S]*?<!-- peers:end -->/
const REGIONS = ['durable', 'resume', 'memory', 'concurrency']
const regionRe = (name) => new RegExp(`<!-- peers-${name}:start -->[\\s\\S]*?<!-- peers-${name}:end -->`)
export const region = (name, lines) => [`<!-- peers-${name}:start -->`, ...lines, `<!-- peers-${name}:end -->`].join('\n')

/** The whole peers section: `main` (figures 1–3), then the regions in figure order; a region not in `regions` is kept from `doc`. */
export function withSection(doc, main, regions) {
  const parts = [main, ...REGIONS.map((name) => regions[name] ?? regionRe(name).exec(doc)?.[0]).filter(Boolean)]
  const section = `<!-- peers:start -->\n${parts.join('\n\n')}\n<!-- peers:end -->`
  return PEERS_RE.test(doc) ? doc.replace(PEERS_RE, () => section) : `${doc.trimEnd()}\n\n${section}\n`
}

/**
 * The level-2 headings of `before` that `after` no longer has: hand-written sections that sat
 * inside a generated region (a rewrite of the region would delete them). The generated text keeps
 * its own headings from run to run, so anything listed here is someone's section.
 */
export function lostHeadings(before, after) {
  const headings = (doc) => doc.split('\n').filter((line) => line.startsWith('## '))
  const kept = new Set(headings(after))
  return headings(before).filter((heading) => !kept.has(heading))
}

/** Replaces one region; a region not there yet goes at the end of the peers section. */
export function withRegion(doc, name, text) {
  const re = regionRe(name)
  if (re.test(doc)) return doc.replace(re, () => text)
  if (doc.includes('<!-- peers:end -->')) return doc.replace('<!-- peers:end -->', () => `${text}\n<!-- peers:end -->`)
  return `${doc.trimEnd()}\n\n${text}\n`
}
