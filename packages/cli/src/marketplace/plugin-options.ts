import { BosunError, definePlugin, type JsonSchema } from '@bosun/core'
import { compileOptionsValidator, envVariablesNamed, validateConfig, type BundledModules } from '@bosun/core/config'
import { marketplaceError } from './errors.js'
import { pairProblem, splitPair } from '../option-pair.js'

/** One row of an options table: what `bosun plugins info` shows for each top-level option. */
export interface OptionRow {
  key: string
  type: string
  required: boolean
  default: string | undefined
  description: string | undefined
}

/** The top-level options a schema describes, in its order. */
export function optionRows(schema: JsonSchema): OptionRow[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  return Object.entries(properties).map(([key, property]) => ({
    key,
    type: typeName(property),
    required: required.has(key),
    default: property.default === undefined ? undefined : JSON.stringify(property.default),
    description: typeof property.description === 'string' ? property.description : undefined,
  }))
}

/**
 * The options `--option key=value` pairs give, each value converted by its schema type (number,
 * integer, boolean; an array as comma-separated items of its item type; an object or anything
 * else as JSON), then checked against the whole schema — before anything is installed or written.
 * Every problem names the key and the type it expected.
 */
export function optionsFromPairs(pairs: readonly string[], schema: JsonSchema | undefined, packageName: string): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>
  const options: Record<string, unknown> = {}
  for (const [index, pair] of pairs.entries()) {
    // The command line refuses these as usage errors first; a program calling this gets the same words.
    const problem = pairProblem(pair, pairs.slice(0, index))
    if (problem !== undefined) throw marketplaceError('OPTION_INVALID', `--option ${JSON.stringify(pair)}: ${problem}`)
    const { key, text } = splitPair(pair) as { key: string; text: string }
    options[key] = convert(key, text, properties[key])
  }
  // A key the schema does not know is refused here too, in the config loader's words: `unknown key
  // "turnsPerMinit" — did you mean "turnsPerMinute"?`, or the known keys when none is near. (add
  // said only "has no option", with the list to search by eye.)
  if (schema !== undefined) {
    try {
      compileOptionsValidator({}, schema)(options, packageName)
    } catch (error) {
      throw marketplaceError('OPTION_INVALID', `${(error as Error).message}\nNothing was installed or written. See the options with: bosun plugins info ${packageName}`)
    }
  }
  return options
}

/**
 * Checks `options` as the config loader will once they are in the config file, beyond their
 * schema: a literal secret under a key such as `token` or `apiKey`, a URL with a credential, a
 * helper model's options. The schema alone passed them, so `add` installed the package, wrote the
 * secret into the config file (and printed it in its "Added …" line), and only then did `bosun
 * config check` refuse the config. A variable an `…Env` option names that is unset here is not
 * refused: it may be set where bosun runs, and the closing config check says so, as before.
 * The config loader's own check runs here, on a stand-in plugin with the package's schema, so the
 * two cannot disagree. Problems are said as `OPTION_INVALID`, never with a secret's value.
 */
export async function checkOptionsAsConfig(
  options: Record<string, unknown>,
  schema: JsonSchema | undefined,
  packageName: string,
  where: { dir: string; env: Readonly<Record<string, string | undefined>>; bundled?: BundledModules },
): Promise<void> {
  const standIn = definePlugin({ name: 'options', ...(schema === undefined ? {} : { schema }), setup() {} })
  try {
    await validateConfig({ config: { plugins: [[standIn, options]] }, file: undefined, dir: where.dir }, { env: where.env, ...(where.bundled ? { bundled: where.bundled } : {}) })
  } catch (error) {
    const found = error instanceof BosunError ? (error.details as { problems?: { path: string; message: string }[] } | undefined)?.problems : undefined
    if (found === undefined) throw error
    // A variable not set in this shell may be set where bosun runs (a server, CI): that is left
    // to the config check `add` runs at its end, as before; what the file would hold is not.
    const unset = envVariablesNamed(options).filter((name) => !where.env[name])
    const problems = found.filter(({ message }) => !unset.some((name) => message.startsWith(`environment variable ${JSON.stringify(name)} is not set`)))
    if (problems.length === 0) return
    const lines = problems.map(({ path, message }) => `  - ${path.replace(/^\$\.plugins\[0\]\[1\]/, '$')}: ${message}`)
    throw marketplaceError('OPTION_INVALID', `Invalid options for ${packageName}:\n${lines.join('\n')}\nNothing was installed or written. See the options with: bosun plugins info ${packageName}`)
  }
}

function convert(key: string, text: string, property: JsonSchema | undefined): unknown {
  // A type list takes a value any of its types can read, tried in its order: `["integer",
  // "string"]` takes 5000 and "5s". Reading by the first type alone refused what the schema accepts.
  const types = Array.isArray(property?.type) ? (property.type as string[]).filter((t) => t !== 'null') : []
  if (types.length > 1) {
    let first: unknown
    for (const one of types) {
      try {
        return convert(key, text, { ...property, type: one })
      } catch (error) {
        first ??= error
      }
    }
    throw first
  }
  const type = primaryType(property)
  const fail = (expected: string) =>
    marketplaceError('OPTION_INVALID', `option "${key}" expects ${expected}, got ${JSON.stringify(text)}.`, { key, expected: type })
  switch (type) {
    case 'number':
    case 'integer': {
      const value = Number(text)
      if (text.trim() === '' || !Number.isFinite(value)) throw fail(type === 'integer' ? 'an integer' : 'a number')
      if (type === 'integer' && !Number.isInteger(value)) throw fail('an integer')
      return value
    }
    case 'boolean':
      if (text === 'true') return true
      if (text === 'false') return false
      throw fail('a boolean (true or false)')
    case 'array': {
      if (text.trim().startsWith('[')) return parseJson(text, fail, 'an array (comma-separated, or JSON)')
      const items = text === '' ? [] : text.split(',').map((item) => item.trim())
      return items.map((item) => convert(`${key}[]`, item, property?.items as JsonSchema | undefined))
    }
    case 'object':
      return parseJson(text, fail, 'an object (as JSON)')
    case 'string':
      return text
    default:
      // No type in the schema: JSON when it parses (numbers, true, [..]), else the text.
      try {
        return JSON.parse(text) as unknown
      } catch {
        return text
      }
  }
}

function parseJson(text: string, fail: (expected: string) => Error, expected: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw fail(expected)
  }
}

function primaryType(property: JsonSchema | undefined): string | undefined {
  const type = property?.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return type.find((t) => t !== 'null') as string | undefined
  if (Array.isArray(property?.enum) && property.enum.every((value) => typeof value === 'string')) return 'string'
  return undefined
}

function typeName(property: JsonSchema): string {
  const type = primaryType(property)
  if (Array.isArray(property.enum)) return property.enum.map((value) => JSON.stringify(value)).join(' | ')
  const types = Array.isArray(property.type) ? (property.type as string[]).filter((t) => t !== 'null') : []
  if (types.length > 1) return types.join(' | ')
  if (type === 'array') {
    const item = primaryType(property.items as JsonSchema | undefined)
    return item ? `${item}[]` : 'array'
  }
  return type ?? (Array.isArray(property.anyOf) || Array.isArray(property.oneOf) ? 'one of several' : 'any')
}
