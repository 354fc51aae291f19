// Per-step overhead at 100 events of history. Each history length has its own file, so
// that vitest runs it in a fresh worker: figures measured late in a long-lived worker carry the
// garbage of earlier fixtures. Run all with `pnpm bench`.
import { bench, describe } from 'vitest'
import { benchOptions, fixture } from './fixture.js'

describe('core overhead per turn at 100 events of history (scripted model, memory store)', async () => {
  const plain = fixture(100, false)
  const tool = fixture(100, true)
  await plain.setup()
  await tool.setup()
  bench('one-step turn, 100 events', plain.turn, benchOptions(plain.now))
  bench('tool turn (2 steps), 100 events', tool.turn, benchOptions(tool.now))
})
