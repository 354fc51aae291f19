// Every option of createHost() is in docs/host.md's options table with its type, default and what
// it does, and the table names nothing createHost() refuses — the check the adapters', stores' and
// plugins' READMEs get (tests/docs/options.test.ts), on the schema createHost() validates with.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { problemsOf, type Schema } from '../../../tests/docs/option-tables.js'
import { hostOptionsSchema } from '../src/options.js'

it('every option of createHost() is in docs/host.md, and nothing else is', () => {
  const markdown = readFileSync(fileURLToPath(new URL('../../../docs/host.md', import.meta.url)), 'utf8')
  expect(problemsOf(hostOptionsSchema as Schema, markdown, 'docs/host.md')).toEqual([])
})
