import { describe, expect, it } from 'vitest'
import { addToTs, removeFromTs } from './ts-config.js'

const entry = ['word-guard', { words: ['password'] }]
const isGuard = (name: string) => name === 'word-guard'

describe('addToTs: a TypeScript config edited as text', () => {
  it('adds a line to a one-per-line array, indented like its neighbours, comments kept', () => {
    const text = `import { defineConfig } from '@bosun/core/config'\n\n// my agent\nexport default defineConfig({\n  plugins: [\n    'retry', // first\n    ['rate-limit', { turnsPerMinute: 20 }],\n  ],\n})\n`
    expect(addToTs(text, entry)).toBe(text.replace("20 }],\n", "20 }],\n    ['word-guard', { words: ['password'] }],\n"))
  })

  it('adds the comma an element without one needs', () => {
    expect(addToTs(`export default {\n  plugins: [\n    'retry' // first\n  ],\n}\n`, 'word-guard')).toBe(`export default {\n  plugins: [\n    'retry', // first\n    'word-guard',\n  ],\n}\n`)
  })

  it('extends a one-line array and an empty one, in the file\'s quote style', () => {
    expect(addToTs(`export default { plugins: ["retry"] }\n`, entry)).toBe(`export default { plugins: ["retry", ["word-guard", { words: ["password"] }]] }\n`)
    expect(addToTs(`export default { plugins: [] }\n`, 'word-guard')).toBe(`export default { plugins: ['word-guard'] }\n`)
  })

  it('creates plugins inside defineConfig({ or export default { when there is none', () => {
    expect(addToTs(`export default defineConfig({\n  system: 'be brief',\n})\n`, 'word-guard')).toBe(`export default defineConfig({\n  plugins: ['word-guard'],\n  system: 'be brief',\n})\n`)
  })

  it('does not edit what it cannot follow: a variable, a spread of another array, two plugins keys', () => {
    expect(addToTs(`const list = ['retry']\nexport default { plugins: list }\n`, 'x')).toBeUndefined()
    expect(addToTs(`export default { a: { plugins: [] }, plugins: [] }\n`, 'x')).toBeUndefined()
    expect(addToTs(`module.exports = makeConfig()\n`, 'x')).toBeUndefined()
  })

  it('ignores "plugins: [" inside strings and comments', () => {
    const text = `// plugins: [old]\nexport default {\n  system: 'plugins: [x]',\n  plugins: ['retry'],\n}\n`
    expect(addToTs(text, 'word-guard')).toBe(text.replace("['retry']", "['retry', 'word-guard']"))
  })
})

describe('removeFromTs', () => {
  it('removes an element on its own line, with its comment, and leaves the rest as it was', () => {
    const before = `export default {\n  plugins: [\n    'retry', // first\n    ['word-guard', { words: ['a,b'] }], // guard\n    'compaction',\n  ],\n}\n`
    expect(removeFromTs(before, isGuard)).toBe(`export default {\n  plugins: [\n    'retry', // first\n    'compaction',\n  ],\n}\n`)
  })

  it('removes from a one-line array, first, middle or last', () => {
    expect(removeFromTs(`x({ plugins: ['word-guard', 'retry'] })`, isGuard)).toBe(`x({ plugins: ['retry'] })`)
    expect(removeFromTs(`x({ plugins: ['retry', ['word-guard', {}], 'c'] })`, isGuard)).toBe(`x({ plugins: ['retry', 'c'] })`)
    expect(removeFromTs(`x({ plugins: ['retry', 'word-guard'] })`, isGuard)).toBe(`x({ plugins: ['retry'] })`)
  })

  it('answers undefined when nothing matches', () => {
    expect(removeFromTs(`x({ plugins: ['retry'] })`, isGuard)).toBeUndefined()
  })
})
