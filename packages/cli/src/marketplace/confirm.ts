import { createInterface } from 'node:readline'
import type { Io } from '../io.js'

/**
 * Asks `question` on stderr and reads one line from stdin: `y` or `yes` (any case) is a yes;
 * anything else, or stdin ending first, is a no. A pipe answers too (`yes | bosun plugins add x`).
 */
export async function confirm(io: Io, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `)
  const lines = createInterface({ input: io.stdin, terminal: false })
  try {
    for await (const line of lines) return /^\s*y(es)?\s*$/i.test(line)
    return false
  } finally {
    lines.close()
  }
}
