// Dev aid (docs/benchmarks.md, "Durable sessions at once"): how appends to N files are made
// durable fastest on this disk, without any store. Each round appends 700 bytes to each of N files
// (a JSONL batch) and makes all of them durable, as:
//   sequential   write each file, then fdatasync them one after the other (thread pool, awaited in turn)
//   parallel     write each file (writeSync), then all fdatasyncs at once (the JSONL store's round)
//   dsync        all writes at once on files opened O_DSYNC (the JSONL store before issue 20)
//   journal      write each file (writeSync, not synced) and the round's bytes once more to ONE
//                shared file, then a single fdatasync of that file (what a shared journal would pay)
// Variants alternate round by round for `ms` each; prints durable appends/s per variant and N.
//   node benchmarks/sync-order.mjs [rounds=5] [ms=600]
import { constants, mkdtempSync, rmSync, writeSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median } from './lib/children.mjs'

const USAGE = 'usage: node benchmarks/sync-order.mjs [rounds=5] [ms=600]'
const argv = process.argv.slice(2)
if (argv.includes('--help') || argv.includes('-h')) { console.log(USAGE); process.exit(0) }
if (argv.length > 2 || argv.some((a) => !/^[1-9]\d*$/.test(a))) { console.error(USAGE); process.exit(2) }
const [rounds, ms] = [Number(argv[0] ?? 5), Number(argv[1] ?? 600)]
const VARIANTS = ['sequential', 'parallel', 'dsync', 'journal']
const SIZES = [1, 8, 64]
const batch = Buffer.alloc(700, 'x')

async function run(variant, n) {
  const dir = mkdtempSync(join(tmpdir(), 'bosun-sync-order-'))
  const flags = constants.O_RDWR | constants.O_CREAT | (variant === 'dsync' ? constants.O_DSYNC : 0)
  const files = await Promise.all(Array.from({ length: n }, (_, i) => open(join(dir, `f${i}`), flags, 0o600)))
  const journal = await open(join(dir, 'journal'), constants.O_RDWR | constants.O_CREAT, 0o600)
  const all = Buffer.alloc(batch.length * n, 'x')
  let position = 0
  let appends = 0
  const t0 = performance.now()
  try {
    while (performance.now() - t0 < ms) {
      if (variant === 'dsync') {
        await Promise.all(files.map((f) => f.write(batch, 0, batch.length, position)))
      } else {
        for (const f of files) writeSync(f.fd, batch, 0, batch.length, position)
        if (variant === 'sequential') for (const f of files) await f.datasync()
        else if (variant === 'parallel') await Promise.all(files.map((f) => f.datasync()))
        else {
          writeSync(journal.fd, all, 0, all.length, position * n)
          await journal.datasync()
        }
      }
      position += batch.length
      appends += n
    }
    return appends / ((performance.now() - t0) / 1000)
  } finally {
    await Promise.all([...files, journal].map((f) => f.close()))
    rmSync(dir, { recursive: true, force: true })
  }
}

const results = new Map()
for (let round = 0; round < rounds; round++) {
  for (const n of SIZES) {
    for (const variant of round % 2 ? [...VARIANTS].reverse() : VARIANTS) {
      const key = `${n}/${variant}`
      if (!results.has(key)) results.set(key, [])
      results.get(key).push(await run(variant, n))
    }
  }
}
console.log(`node benchmarks/sync-order.mjs ${rounds} ${ms}: durable appends/s, median over ${rounds} interleaved rounds (min–max); UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`)
for (const n of SIZES) {
  console.log(`${n} file(s): ${VARIANTS.map((v) => { const xs = results.get(`${n}/${v}`); return `${v} ${Math.round(median(xs))} (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})` }).join(', ')}`)
}
