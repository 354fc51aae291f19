// Per-step overhead at 10000 events of history. Each history length has its own file, so
// that vitest runs it in a fresh worker: figures measured late in a long-lived worker carry the
// garbage of earlier fixtures. Run all with `pnpm bench`.
import { bench, describe } from 'vitest'
import { benchOptions, fixture } from './fixture.js'

describe('core overhead per turn at 10000 events of history (scripted model, memory store)', async () => {
  const plain = fixture(10000, false)
  const tool = fixture(10000, true)
  await plain.setup()
  await tool.setup()
  bench('one-step turn, 10000 events', plain.turn, benchOptions(plain.now))
  bench('tool turn (2 steps), 10000 events', tool.turn, benchOptions(tool.now))
})
