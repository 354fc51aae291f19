import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The suite's longest files, started first (in this order), the rest as Vitest orders them. On a
 * fresh clone Vitest has no durations cached and starts the biggest files first, which put the two
 * crash campaigns — small files, ~40 s each — at the very end, side by side (the run's last
 * 210 s when they ran 100 kills each). Started first, the long files run beside the many short
 * ones instead of after them. Measured in docs/benchmarks.md ("The test suite's wall time").
 */
const LONG_FILES = [
  'tests/release/rehearsal.test.ts',
  'tests/marketplace/marketplace.test.ts',
  'tests/web/web.test.ts',
  'tests/crash/sqlite.crash.test.ts',
  'benchmarks/smoke.test.ts',
  'tests/crash/jsonl.crash.test.ts',
]

export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) => {
      const index = LONG_FILES.findIndex((long) => file.moduleId.endsWith(`/${long}`))
      return index === -1 ? LONG_FILES.length : index
    }
    // A stable sort: the rest keep Vitest's order.
    return sorted.map((file, at) => ({ file, at, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.at - b.at).map(({ file }) => file)
  }
}
