// Durable acknowledgements per second at the store's writer, one store in its own process:
// `node acks-child.mjs '<json>'` with { variant: 'jsonl' | 'sqlite', sessions, ms }. N sessions in
// one store (BENCH_STORE_JSONL / BENCH_STORE_SQLITE pick another build, see ab-stores.mjs), each in
// a closed loop: append one realistic event (a 10-character text delta), await flush(). After a
// 200 ms warm-up, acks/s = all acks in `ms` ÷ the time taken. Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

const config = JSON.parse(process.argv[2])
const dir = mkdtempSync(join(tmpdir(), 'bosun-acks-'))
const EVENT = { type: 'assistant/chunk', data: { chunk: { type: 'text-delta', text: 'hello worl' } } }

async function main() {
  const store = config.variant === 'jsonl'
    ? (await import(process.env.BENCH_STORE_JSONL ?? '@bosun/plugin-store-jsonl')).jsonlStore({ dir, batchWindowMs: 0 })
    : (await import(process.env.BENCH_STORE_SQLITE ?? '@bosun/plugin-store-sqlite')).sqliteStore({ file: join(dir, 'acks.db'), batchWindowMs: 0 })
  try {
    const writers = []
    for (let i = 0; i < config.sessions; i++) writers.push({ writer: (await store.create({ id: `s${i}`, version: 1, createdAt: 0 })).writer, seq: 0 })
    const loop = async (until) => {
      let acks = 0
      await Promise.all(writers.map(async (w) => {
        while (performance.now() < until) {
          w.writer.append({ seq: w.seq++, time: Date.now(), ...EVENT })
          await w.writer.flush()
          acks++
        }
      }))
      return acks
    }
    await loop(performance.now() + 200)
    const t0 = performance.now()
    const acks = await loop(t0 + config.ms)
    return { ok: true, acks, acksPerS: acks / ((performance.now() - t0) / 1000) }
  } finally {
    await store.close()
  }
}

main().then(
  (result) => { rmSync(dir, { recursive: true, force: true }); process.stdout.write(JSON.stringify(result) + '\n') },
  (error) => { rmSync(dir, { recursive: true, force: true }); process.stdout.write(JSON.stringify({ ok: false, reason: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }) + '\n') },
)
