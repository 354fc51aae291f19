import { readFile, writeFile } from 'node:fs/promises'
import { basename, extname } from 'node:path'
import { loadConfig } from '@bosun/core/config'
import { findInCode, firstStringLiteral, lineBreakOf } from './source-scan.js'
import { addToTs, removeFromTs, renderLiteral } from './ts-config.js'
import { addToYaml, removeFromYaml } from './yaml-config.js'

/** What an edit did: the file was changed, or the user is told exactly what to change by hand. */
export type EditResult = { edited: true } | { edited: false; instruction: string }

type Format = 'json' | 'package-json' | 'yaml' | 'code'

/**
 * Adds a plugin entry (`'name'` or `['name', options]`) to the `plugins` list of the config file
 * in the file's own format. JSON is rewritten with its indentation; YAML and TypeScript are edited
 * as text so comments and layout stay. Every edit is checked by loading the file again: unless the
 * loaded `plugins` list is the old one with the entry appended, the file is put back as it was and
 * the instruction says what to add by hand.
 */
export async function addPluginEntry(file: string, entry: unknown): Promise<EditResult> {
  const format = formatOf(file)
  const before = await readFile(file, 'utf8')
  const oldList = await loadedPlugins(file)
  const edited = format === 'json' || format === 'package-json' ? editJson(before, format, (list) => [...list, entry]) : format === 'yaml' ? addToYaml(before, entry) : addToTs(before, entry)
  const expected = [...(oldList ?? []), entry]
  if (edited !== undefined && oldList !== undefined && (await writeChecked(file, before, edited, expected))) return { edited: true }
  return { edited: false, instruction: instructionToAdd(file, format, entry) }
}

/** Removes every `plugins` entry whose name `matches` (same checks as {@link addPluginEntry}). */
export async function removePluginEntry(file: string, matches: (name: string) => boolean): Promise<EditResult | 'absent'> {
  const format = formatOf(file)
  const before = await readFile(file, 'utf8')
  const oldList = await loadedPlugins(file)
  if (oldList !== undefined && !oldList.some((entry) => matches(entryName(entry) ?? ''))) return 'absent'
  const keep = (list: unknown[]) => list.filter((entry) => !matches(entryName(entry) ?? ''))
  const edited = format === 'json' || format === 'package-json' ? editJson(before, format, keep) : format === 'yaml' ? removeFromYaml(before, matches) : removeFromTs(before, matches)
  if (edited !== undefined && oldList !== undefined && (await writeChecked(file, before, edited, keep(oldList)))) return { edited: true }
  const names = (oldList ?? []).map(entryName).filter((name): name is string => name !== undefined && matches(name))
  return { edited: false, instruction: `remove the entry ${names.map((name) => JSON.stringify(name)).join(', ') || 'naming the plugin'} from "plugins" in ${basename(file)}` }
}

/**
 * The specifier by which a TypeScript or JavaScript config imports `packageName` (or a subpath of
 * it: `import x from '…'`, `import('…')`, `require('…')`), if it does. Such a config can name the
 * plugin by the object it imports (`plugins: [[wordBan, {…}]]`), which no entry name matches:
 * `remove` must not uninstall the package under the import.
 */
export async function importedBy(file: string, packageName: string): Promise<string | undefined> {
  if (formatOf(file) !== 'code') return undefined
  const text = await readFile(file, 'utf8')
  for (const match of findInCode(text, /(?:\bfrom|\bimport|\brequire)\s*\(?\s*(?=['"])/)) {
    const specifier = firstStringLiteral(text.slice(match.index + match[0].length))
    if (specifier !== undefined && (specifier === packageName || specifier.startsWith(`${packageName}/`))) return specifier
  }
  return undefined
}

/** The name an entry gives: `'retry'` or `['retry', {…}]` → `retry`. */
export function entryName(entry: unknown): string | undefined {
  const name = Array.isArray(entry) ? entry[0] : entry
  return typeof name === 'string' ? name : undefined
}

function formatOf(file: string): Format {
  if (basename(file) === 'package.json') return 'package-json'
  const ext = extname(file)
  if (ext === '.json') return 'json'
  if (ext === '.yaml' || ext === '.yml') return 'yaml'
  if (['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].includes(ext)) return 'code'
  return 'yaml' // `.bosunrc` is YAML or JSON, and JSON is YAML
}

/** The `plugins` list the file gives when loaded, or `undefined` when it does not load. */
async function loadedPlugins(file: string): Promise<unknown[] | undefined> {
  try {
    const loaded = await loadConfig({ file, validate: false })
    const plugins: unknown = (loaded.config as { plugins?: unknown }).plugins
    return plugins === undefined || plugins === null ? [] : Array.isArray(plugins) ? plugins : undefined
  } catch {
    return undefined
  }
}

async function writeChecked(file: string, before: string, after: string, expected: unknown[]): Promise<boolean> {
  await writeFile(file, after)
  const loaded = await loadedPlugins(file)
  if (loaded !== undefined && JSON.stringify(loaded) === JSON.stringify(expected)) return true
  await writeFile(file, before)
  return false
}

function editJson(text: string, format: Format, change: (list: unknown[]) => unknown[]): string | undefined {
  let document: Record<string, any>
  try {
    document = JSON.parse(text) as Record<string, any>
  } catch {
    return undefined
  }
  const holder = format === 'package-json' ? (document.bosun ??= {}) : document
  if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) return undefined
  const list: unknown = holder.plugins ?? []
  if (!Array.isArray(list)) return undefined
  holder.plugins = change(list)
  const indent = /^[ \t]+(?=")/m.exec(text)?.[0] ?? '  '
  const json = `${JSON.stringify(document, null, indent)}${text.endsWith('\n') ? '\n' : ''}`
  return lineBreakOf(text) === '\r\n' ? json.replace(/\n/g, '\r\n') : json
}

function instructionToAdd(file: string, format: Format, entry: unknown): string {
  const value = format === 'code' ? renderLiteral(entry, "'") : JSON.stringify(entry)
  if (format === 'yaml') return `add this item to "plugins:" in ${basename(file)}:\n  - ${value}`
  if (format === 'package-json') return `add this entry to "bosun": { "plugins": [...] } in package.json:\n  ${value}`
  return `add this entry to the plugins list in ${basename(file)}:\n  plugins: [..., ${value}]`
}
