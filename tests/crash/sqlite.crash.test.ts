import { beforeAll, expect, it } from 'vitest'
import { buildOnce, campaignTimeoutMs, killsFromEnv, seedFromEnv } from './build.js'
import { crashCampaign } from './campaign.js'

beforeAll(buildOnce, 180_000)

it(`SQLite: a session survives ${killsFromEnv()} SIGKILLs, some of them in the middle of crash repair, with every acknowledged message accounted for`, async () => {
  const report = await crashCampaign('sqlite', killsFromEnv(), seedFromEnv())
  console.log(JSON.stringify(report))
  expect(report.kills).toBe(killsFromEnv())
  expect(report.acked).toBeGreaterThan(0)
  expect(report.interruptedTurns).toBeGreaterThan(0) // the kills did land inside turns
  if (report.kills >= 10) expect(report.repairTears).toBeGreaterThan(0) // and some inside recovery's batch
}, campaignTimeoutMs())
