/**
 * Partial deep equality, as `toMatchObject` does it: every key of an expected object must be
 * present and match (other keys of `actual` are ignored); arrays must have the same length and
 * match element by element; anything else must be identical (`Object.is`).
 */
export function matches(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => matches(actual[i], item))
  }
  if (isRecord(expected)) {
    return isRecord(actual) && Object.entries(expected).every(([key, value]) => Object.hasOwn(actual, key) && matches(actual[key], value))
  }
  return Object.is(actual, expected)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
