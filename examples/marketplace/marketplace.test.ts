// The four reference plugins composed by one config file, on the scripted model: the log shows a
// retried request, a rejected turn and a compaction — the path a user's config takes.
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { formatTimeline } from '@bosun/core'
import { createAgentFromConfig, loadConfig } from '@bosun/core/config'

const here = fileURLToPath(new URL('.', import.meta.url))
let project: string | undefined

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true })
})

it('shows a retried request, a rejected turn and a compaction in the log', async () => {
  // A project folder inside the example, so the plugins resolve from its node_modules.
  project = await mkdtemp(join(here, '.run-'))
  await cp(join(here, 'bosun.config.json'), join(project, 'bosun.config.json'))
  const agent = await createAgentFromConfig(await loadConfig({ cwd: project }), { sessionId: 'demo' })
  for (const text of ['Hello!', 'Tell me more.', 'my password: hunter2', 'And finally?']) {
    agent.followup(text)
    await agent.whenIdle()
  }
  const log = formatTimeline(agent.session.events, { requests: false, maxText: 40 })
  await agent.close()
  expect(log).toContain('llm/retry 2.1 attempt=2')
  expect(log).toMatch(/turn\/end 3 blocked by=content-filter \{"rule":"no-passwords"/)
  expect(log).toMatch(/compaction\/start \(threshold\)\ncompaction\/summary \"Summary of the earlier part/)
  expect(log.replace(/"messageId":"[^"]+"/g, '"messageId":"<id>"').replace(/delay=\d+ms/g, 'delay=Nms')).toMatchInlineSnapshot(`
    "splice next-turn @0 +["Hello!"]
    turn/start 1
    splice next-turn @0 -1
    step/start 1.1
    user/message "Hello!"
    assistant/message "Here is a long and careful answer that g…"
    step/end 1.1 stop
    turn/end 1 completed
    splice next-turn @0 +["Tell me more."]
    turn/start 2
    splice next-turn @0 -1
    step/start 2.1
    user/message "Tell me more."
    llm/retry 2.1 attempt=2 delay=Nms RATE_LIMIT
    assistant/message "Answered after one retry. Here is a long…"
    step/end 2.1 stop
    turn/end 2 completed
    splice next-turn @0 +["my password: hunter2"]
    turn/start 3
    splice next-turn @0 -1
    rejected 3 by=content-filter {"rule":"no-passwords","messageId":"<id>","excerpt":"password:"}
    turn/end 3 blocked by=content-filter {"rule":"no-passwords","messageId":"<id>","excerpt":"password:"}
    splice next-turn @0 +["And finally?"]
    turn/start 4
    splice next-turn @0 -1
    step/start 4.1
    user/message "And finally?"
    compaction/start (threshold)
    compaction/summary "Summary of the earlier part of this conv…" replaces seq < 56
    compaction/end
    assistant/message "Short answer on a compacted history."
    step/end 4.1 stop
    turn/end 4 completed"
  `)
})
