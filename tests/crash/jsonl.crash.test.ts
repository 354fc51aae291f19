import { beforeAll, expect, it } from 'vitest'
import { buildOnce, killsFromEnv } from './build.js'
import { crashCampaign } from './campaign.js'

beforeAll(buildOnce, 180_000)

it(`JSONL: a session survives ${killsFromEnv()} SIGKILLs with every acknowledged message accounted for`, async () => {
  const report = await crashCampaign('jsonl', killsFromEnv())
  console.log(JSON.stringify(report))
  expect(report.kills).toBe(killsFromEnv())
  expect(report.acked).toBeGreaterThan(0)
  expect(report.interruptedTurns).toBeGreaterThan(0) // the kills did land inside turns
}, 900_000)
