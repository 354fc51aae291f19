// The path an npm-published plugin takes: a project depends on `bosun-plugin-word-limit` and its
// config names it by the short name `word-limit`; the loader resolves it from the config's folder.
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { formatTimeline } from '@bosun/core'
import { createAgentFromConfig, loadConfig } from '@bosun/core/config'

const app = fileURLToPath(new URL('.', import.meta.url))

it('loads the third-party plugin by its short name and applies it', async () => {
  const loaded = await loadConfig({ cwd: app })
  expect(loaded.file).toBe(`${app}bosun.config.json`)
  const agent = await createAgentFromConfig(loaded)
  agent.followup('one two three four five six seven')
  agent.followup('short and sweet')
  await agent.whenIdle()
  expect(formatTimeline(agent.session.events, { requests: false }).replace(/"messageId":"[^"]+"/g, '"messageId":"<id>"')).toMatchInlineSnapshot(`
    "splice next-turn @0 +["one two three four five six seven"]
    splice next-turn @1 +["short and sweet"]
    turn/start 1
    splice next-turn @0 -1
    rejected 1 by=word-limit {"messageId":"<id>","words":7,"maxWords":5}
    turn/end 1 blocked by=word-limit {"messageId":"<id>","words":7,"maxWords":5}
    turn/start 2
    splice next-turn @0 -1
    step/start 2.1
    user/message "short and sweet"
    assistant/message "echo: short and sweet"
    step/end 2.1 stop
    turn/end 2 completed"
  `)
  await agent.close()
})
