/**
 * The part of semver that a plugin's `@bosun/core` range needs: `^`, `~`, x-ranges (`1.x`, `*`),
 * comparators (`>=1.2.0 <2`), hyphen ranges (`1.0.0 - 1.4.0`) and `||`. A version with a
 * pre-release tag satisfies a range only through a comparator on the same major.minor.patch, as
 * npm decides. No dependency: the core keeps to tapable, ajv, cosmiconfig and jiti.
 */
type Triple = [number, number, number]
interface Version { triple: Triple; pre: string | undefined }
type Comparator = { op: '<' | '<=' | '>' | '>=' | '='; version: Version }

/** Whether `version` (`0.1.0`, `1.2.3-rc.1`) is in `range`. An unparseable version or range is never satisfied. */
export function satisfiesRange(version: string, range: string): boolean {
  const parsed = parseVersion(version.trim().replace(/^v/, ''))
  if (!parsed) return false
  return range.split('||').some((part) => {
    const set = comparators(part.trim())
    if (!set) return false
    if (!set.every((comparator) => test(parsed, comparator))) return false
    if (parsed.pre === undefined) return true
    return set.some((c) => c.version.pre !== undefined && compareTriples(c.version.triple, parsed.triple) === 0)
  })
}

function parseVersion(text: string): Version | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text)
  return match ? { triple: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] } : undefined
}

/** The comparators of one `||` part; `undefined` when it does not parse. */
function comparators(part: string): Comparator[] | undefined {
  if (part === '' || part === '*' || part === 'x' || part === 'latest') return []
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(part)
  if (hyphen) {
    const low = partial(hyphen[1]!)
    const high = partial(hyphen[2]!)
    if (!low || !high) return undefined
    return [{ op: '>=', version: fill(low) }, ...upper(high, '<=')]
  }
  const result: Comparator[] = []
  for (const token of part.replace(/([<>=~^]+)\s+/g, '$1').split(/\s+/)) {
    const match = /^(\^|~|>=|<=|>|<|=)?v?(.+)$/.exec(token)
    const numbers = match && partial(match[2]!)
    if (!match || !numbers) return undefined
    const op = match[1] as Comparator['op'] | '^' | '~' | undefined
    const [major, minor, patch] = numbers.parts
    const base = fill(numbers)
    if (op === '^') {
      const ceiling: Triple = major! > 0 || minor === undefined ? [major! + 1, 0, 0] : minor > 0 || patch === undefined ? [0, minor + 1, 0] : [0, 0, patch + 1]
      result.push({ op: '>=', version: base }, { op: '<', version: { triple: ceiling, pre: '0' } })
    } else if (op === '~') {
      const ceiling: Triple = minor === undefined ? [major! + 1, 0, 0] : [major!, minor + 1, 0]
      result.push({ op: '>=', version: base }, { op: '<', version: { triple: ceiling, pre: '0' } })
    } else if (op === undefined || op === '=') {
      if (numbers.parts.length === 3) result.push({ op: '=', version: base })
      else result.push({ op: '>=', version: base }, ...upper(numbers, '<'))
    } else if (op === '<=' || op === '>') {
      result.push(...(numbers.parts.length === 3 ? [{ op, version: base }] : op === '<=' ? upper(numbers, '<') : [{ op: '>=' as const, version: next(numbers) }]))
    } else result.push({ op, version: base })
  }
  return result
}

interface Partial { parts: number[]; pre: string | undefined }

/** `1`, `1.2`, `1.2.x`, `1.2.3-rc.1` → the numbers given (x and * end them). */
function partial(text: string): Partial | undefined {
  const match = /^(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text)
  if (!match) return undefined
  const parts: number[] = []
  for (const value of [match[1], match[2], match[3]]) {
    if (value === undefined || /^[xX*]$/.test(value)) break
    parts.push(Number(value))
  }
  return { parts, pre: parts.length === 3 ? match[4] : undefined }
}

function fill(value: Partial): Version {
  return { triple: [value.parts[0] ?? 0, value.parts[1] ?? 0, value.parts[2] ?? 0], pre: value.pre }
}

/** The first version past a partial one (`1.2` → `1.3.0-0`). */
function next(value: Partial): Version {
  const [major = 0, minor = 0] = value.parts
  return { triple: value.parts.length <= 1 ? [major + 1, 0, 0] : [major, minor + 1, 0], pre: '0' }
}

function upper(value: Partial, op: '<' | '<='): Comparator[] {
  if (value.parts.length === 0) return []
  if (value.parts.length === 3) return [{ op, version: fill(value) }]
  return [{ op: '<', version: next(value) }]
}

function test(version: Version, { op, version: bound }: Comparator): boolean {
  const order = compare(version, bound)
  return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : op === '>=' ? order >= 0 : order === 0
}

function compare(a: Version, b: Version): number {
  const triples = compareTriples(a.triple, b.triple)
  if (triples !== 0) return triples
  if (a.pre === b.pre) return 0
  if (a.pre === undefined) return 1
  if (b.pre === undefined) return -1
  const left = a.pre.split('.')
  const right = b.pre.split('.')
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] === undefined) return -1
    if (right[i] === undefined) return 1
    const [x, y] = [left[i]!, right[i]!]
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y)
    const order = numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0
    if (order !== 0) return Math.sign(order)
  }
  return 0
}

function compareTriples(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return Math.sign(a[i]! - b[i]!)
  return 0
}
