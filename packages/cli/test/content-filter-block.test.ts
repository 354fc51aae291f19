// A turn the content-filter plugin blocked (found walking the CLI as a new user): `bosun run`
// printed its metadata as JSON — `blocked by content-filter: {"rule":"api-key","messageId":"…",
// "excerpt":"sk-…"}` — quoting, for a rule made to catch keys, the key itself on the terminal.
// Now a sentence says which rule the message broke and what to do; a match that looks like a
// credential is not shown. `--json` keeps the metadata (the log is the plugin's record).
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)

const KEY = 'sk-abcdefghijklmnopqrstuvwxyz123'
const RULES = [
  { id: 'api-key', pattern: 'sk-[A-Za-z0-9]{20,}', action: 'reject' },
  { id: 'competitors', keywords: ['Globex'], action: 'reject' },
  { id: 'too-long', maxLength: 40, action: 'reject' },
]

describe.concurrent('a turn blocked by the content-filter plugin', () => {
  it.for([
    ['a key', `my key is ${KEY}`, 'the message broke the rule "api-key" (what matched looks like a credential, so it is not shown here), so it did not run; send it again without that.'],
    ['a keyword', 'compare us with Globex', 'the message broke the rule "competitors" (it matched "Globex"), so it did not run; send it again without that.'],
    ['too long', 'a message well over the forty characters allowed', 'the message is 48 characters long, over the 40 the rule "too-long" allows, so it did not run; send a shorter one.'],
  ] as const)('%s', async ([, prompt, said], { dir, expect }) => {
    await writeProject(dir, { plugins: [['content-filter', { rules: RULES }]] })
    const [run, json] = await Promise.all([bosun(['run', '-s', 'words', prompt], { cwd: dir }), bosun(['run', '--json', prompt], { cwd: dir })])
    expect(run.code).toBe(3)
    expect(run.stderr).toContain(`blocked by content-filter: ${said}\n`)
    expect(run.stderr).not.toContain(KEY)
    expect(json.code).toBe(3)
    expect(json.stdout).toContain('"by":"content-filter","metadata":{"rule":')
    // bosun log says the same words (it showed the metadata as JSON).
    expect((await bosun(['log', 'words'], { cwd: dir })).stdout).toContain(`⊘ blocked by content-filter: ${said} · 0 steps`)
  })
})
