import { describe, expect, it } from 'vitest'
import { ScaffoldError } from './errors.js'
import { pluginNames } from './names.js'
import { outputPath, render } from './render.js'

function refusal(fn: () => unknown): ScaffoldError | undefined {
  try {
    fn()
  } catch (error) {
    if (error instanceof ScaffoldError) return error
    throw error
  }
  return undefined
}
const codeOf = (fn: () => unknown): string | undefined => refusal(fn)?.code
const messageOf = (fn: () => unknown): string => refusal(fn)?.message ?? ''

describe('pluginNames', () => {
  it('names an unscoped plugin bosun-plugin-<name>, configured by its short name', () => {
    expect(pluginNames('my-guard')).toEqual({
      name: 'my-guard',
      scope: undefined,
      packageName: 'bosun-plugin-my-guard',
      configName: 'my-guard',
      folder: 'bosun-plugin-my-guard',
    })
  })

  it('names a scoped plugin @scope/bosun-plugin-<name>, configured as @scope/<name>, from the name or --scope', () => {
    const scoped = { name: 'my-guard', scope: '@acme', packageName: '@acme/bosun-plugin-my-guard', configName: '@acme/my-guard', folder: 'bosun-plugin-my-guard' }
    expect(pluginNames('@acme/my-guard')).toEqual(scoped)
    expect(pluginNames('my-guard', '@acme')).toEqual(scoped)
    expect(pluginNames('my-guard', 'acme')).toEqual(scoped)
    expect(pluginNames('@acme/bosun-plugin-my-guard', '@acme')).toEqual(scoped)
  })

  it('accepts the full package name and strips the bosun-plugin- prefix', () => {
    expect(pluginNames('bosun-plugin-rate-limit').name).toBe('rate-limit')
  })

  it('names a first-party plugin @bosun/plugin-<name>, configured by its short name', () => {
    expect(pluginNames('rate-limit', '@bosun')).toMatchObject({ packageName: '@bosun/plugin-rate-limit', configName: 'rate-limit', folder: 'plugin-rate-limit' })
  })

  it('refuses names that cannot be a package name and an event namespace', () => {
    for (const bad of ['', 'My-Guard', 'my_guard', 'my guard', '-guard', 'guard-', 'my--guard', 'a/b', '@acme', '@acme/', 'bosun-plugin-', 'x'.repeat(210)]) {
      expect(codeOf(() => pluginNames(bad)), bad).toBe('INVALID_PLUGIN_NAME')
    }
  })

  it('refuses a bad scope, and two different scopes', () => {
    expect(codeOf(() => pluginNames('guard', '@Acme'))).toBe('INVALID_SCOPE')
    expect(codeOf(() => pluginNames('@a b/guard'))).toBe('INVALID_SCOPE')
    expect(codeOf(() => pluginNames('@acme/guard', '@other'))).toBe('INVALID_SCOPE')
  })

  it('explains what a valid name looks like', () => {
    expect(() => pluginNames('--')).toThrowErrorMatchingInlineSnapshot(`[ScaffoldError: "--" is not a valid plugin name: use lower-case letters, digits and single hyphens, e.g. "my-guard". It becomes the package name (bosun-plugin-<name>) and the namespace of the plugin's events.]`)
  })

  // U3 walk: `create-bosun-plugin Secret-Guard` answered with the rule and "e.g. my-guard", leaving
  // the author to work out the name they meant; the command line of bosun plugins gives it.
  it('names the valid form of what was typed, when there is one (the scope kept)', () => {
    expect(() => pluginNames('My_Guard')).toThrowErrorMatchingInlineSnapshot(`[ScaffoldError: "My_Guard" is not a valid plugin name: use lower-case letters, digits and single hyphens: "my-guard" would do. It becomes the package name (bosun-plugin-<name>) and the namespace of the plugin's events.]`)
    const suggested = (typed: string) => /: "([^"]+)" would do\./.exec(messageOf(() => pluginNames(typed)))?.[1]
    const typedAndMeant: [typed: string, meant: string | undefined][] = [
      ['Secret-Guard', 'secret-guard'], ['piiGuard', 'pii-guard'], ['my guard ', 'my-guard'], ['my--guard', 'my-guard'],
      ['@acme/Word_Ban', '@acme/word-ban'], ['bosun-plugin-My-Guard', 'my-guard'], ['__', undefined],
      ['Ünïcode', 'unicode'], ['café-guard', 'cafe-guard'], // R12: accents came off as cuts ("n-code")
    ]
    for (const [typed, meant] of typedAndMeant) expect(suggested(typed), typed).toBe(meant)
  })
})

describe('templates', () => {
  it('fills placeholders, and reports one it cannot fill with the template path', () => {
    expect(render('"name": "{{packageName}}", {{ name }}', { packageName: 'bosun-plugin-x', name: 'x' }, 'package.json.tpl')).toBe('"name": "bosun-plugin-x", x')
    expect(() => render('{{nope}}', {}, 'src/index.ts.tpl')).toThrow(expect.objectContaining({ code: 'TEMPLATE_PLACEHOLDER', details: { file: 'src/index.ts.tpl', placeholder: 'nope' } }))
  })

  it('writes _x as .x and drops .tpl', () => {
    expect(outputPath('_gitignore.tpl')).toBe('.gitignore')
    expect(outputPath('_changeset/initial.md.tpl')).toBe('.changeset/initial.md')
    expect(outputPath('src/index.test.ts.tpl')).toBe('src/index.test.ts')
    expect(outputPath('README.md')).toBe('README.md')
  })
})
