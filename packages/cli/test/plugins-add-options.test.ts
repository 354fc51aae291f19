// `bosun plugins add -o key=value` (review): a key given twice kept the last value and dropped the
// first without a word (`-o words=a -o words=b` added words: ["b"]), and a malformed pair was said
// only after the registry was asked, as `is not key=value`. Both are usage errors now, said as each
// -o is read: which argument, and what is expected. The registry given is one nothing listens on:
// had it been asked, the error would be REGISTRY_UNREACHABLE (exit 1).
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

const NOWHERE = ['--registry', 'http://127.0.0.1:9/']
const usage = (argument: string, problem: string) => `error USAGE: option '-o, --option <key=value>' argument '${argument}' is invalid. ${problem}\n`

describe.concurrent('bosun plugins add -o key=value', () => {
  it('a key given twice is refused, with the list written as one -o', async ({ dir, expect }) => {
    const result = await bosun(['plugins', 'add', 'word-guard', '-o', 'words=password', '-o', 'ignoreCase=true', '--option', 'words=secret', '--yes', ...NOWHERE], { cwd: dir })
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: usage('words=secret', 'option "words" is given twice (words=password, then words=secret): give each option once; a list goes in one -o, comma-separated (-o words=password,secret).'),
    })
  })

  it.for([
    ['words', 'expected key=value, the option\'s name, "=" and its value (e.g. -o words=password,secret); this has no "=".'],
    ['=password', 'expected key=value, the option\'s name before the "=" (e.g. -o words=password,secret); this has no name.'],
  ] as const)('-o %s: says which argument and what is expected, before the registry is asked', async ([pair, problem], { dir, expect }) => {
    const result = await bosun(['plugins', 'add', 'word-guard', '-o', 'ignoreCase=true', '-o', pair, '--yes', ...NOWHERE], { cwd: dir })
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: usage(pair, problem) })
  })
})
