import { createInterface } from 'node:readline'
import type { Io } from '../io.js'

/**
 * Asks `question` on stderr and reads one line from stdin: `y` or `yes` (any case) is a yes;
 * anything else, or stdin ending first, is a no. A pipe answers too (`yes | bosun plugins add x`):
 * then nothing echoes the Enter, so the answer as taken ends the question's line (`[y/N] no`) —
 * the next output ran on after "[y/N] ". A terminal's own echo ends it there.
 */
export async function confirm(io: Io, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `)
  const yes = await readAnswer(io)
  if (io.stdin.isTTY !== true) io.stderr.write(`${yes ? 'yes' : 'no'}\n`)
  return yes
}

async function readAnswer(io: Io): Promise<boolean> {
  const lines = createInterface({ input: io.stdin, terminal: false })
  try {
    for await (const line of lines) return /^\s*y(es)?\s*$/i.test(line)
    return false
  } finally {
    lines.close()
  }
}
