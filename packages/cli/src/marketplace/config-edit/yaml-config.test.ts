import { describe, expect, it } from 'vitest'
import { addToYaml, removeFromYaml } from './yaml-config.js'

const isGuard = (name: string) => name === 'word-guard'

describe('addToYaml / removeFromYaml: a YAML config edited as text', () => {
  it('appends an item to the plugins block, as indented as the others, comments and other keys kept', () => {
    const text = `# agent\nplugins:\n  - retry # first\n  - - rate-limit\n    - turnsPerMinute: 20\nstore: memory\n`
    expect(addToYaml(text, ['word-guard', { words: ['x'] }])).toBe(`# agent\nplugins:\n  - retry # first\n  - - rate-limit\n    - turnsPerMinute: 20\n  - ["word-guard",{"words":["x"]}]\nstore: memory\n`)
  })

  it('handles items at the key\'s own indentation, a flow list, and no plugins key', () => {
    expect(addToYaml(`plugins:\n- retry\nstore: memory\n`, 'word-guard')).toBe(`plugins:\n- retry\n- "word-guard"\nstore: memory\n`)
    expect(addToYaml(`plugins: [retry]  # list\n`, 'word-guard')).toBe(`plugins: [retry, "word-guard"]  # list\n`)
    expect(addToYaml(`store: memory`, 'word-guard')).toBe(`store: memory\nplugins:\n  - "word-guard"\n`)
  })

  it('refuses a plugins value it does not edit (an anchor, a scalar)', () => {
    expect(addToYaml(`plugins: *shared\n`, 'x')).toBeUndefined()
  })

  it('removes a one-line item and a multi-line one; an emptied block becomes []', () => {
    const text = `plugins:\n  - retry\n  - - word-guard\n    - words: [a]\n  - compaction\n`
    expect(removeFromYaml(text, isGuard)).toBe(`plugins:\n  - retry\n  - compaction\n`)
    expect(removeFromYaml(`plugins:\n  - ["word-guard",{"words":["x"]}]\nstore: memory\n`, isGuard)).toBe(`plugins: []\nstore: memory\n`)
    expect(removeFromYaml(`plugins:\n  - retry\n`, isGuard)).toBeUndefined()
  })
})
