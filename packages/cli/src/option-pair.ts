/**
 * The form of `bosun plugins add -o key=value`, checked as each `-o` is parsed — before the
 * registry is asked — so that a mistake is a usage error about what was typed. Outside
 * marketplace/ and with no dependency on the core: the command line loads it before any command
 * runs, and `bosun run` must not load the marketplace (start.test.ts).
 */

const EXAMPLE = '-o words=password,secret'

/** The key and the text of `key=value`, or what is wrong with its form. */
export function splitPair(pair: string): { key: string; text: string } | { problem: string } {
  const at = pair.indexOf('=')
  if (at < 0) return { problem: `expected key=value, the option's name, "=" and its value (e.g. ${EXAMPLE}); this has no "=".` }
  if (at === 0) return { problem: `expected key=value, the option's name before the "=" (e.g. ${EXAMPLE}); this has no name.` }
  return { key: pair.slice(0, at), text: pair.slice(at + 1) }
}

/**
 * `pair` after the `earlier` ones: what is wrong with it, or undefined. A key given twice is
 * refused rather than the last one kept: `-o words=a -o words=b` reads as a list of two, and
 * keeping `b` alone silently dropped `a`. A list goes in one `-o`, comma-separated.
 */
export function pairProblem(pair: string, earlier: readonly string[]): string | undefined {
  const split = splitPair(pair)
  if ('problem' in split) return split.problem
  const before = earlier.find((each) => {
    const other = splitPair(each)
    return 'key' in other && other.key === split.key
  })
  if (before === undefined) return undefined
  const values = [before, pair].map((each) => each.slice(each.indexOf('=') + 1))
  return `option "${split.key}" is given twice (${before}, then ${pair}): give each option once; a list goes in one -o, comma-separated (-o ${split.key}=${values.join(',')}).`
}
