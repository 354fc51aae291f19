import type { Command } from 'commander'

/**
 * A word after a command group (`bosun config foo`) that is none of its commands: commander hands
 * it to the group's default command as an argument, which then says "too many arguments for
 * 'check'" — about a command the user did not type. Said as what it is, with the group's commands.
 */
export function refuseUnknownWords(group: Command): void {
  group.hook('preSubcommand', (command) => {
    const word = command.args[0]
    const names = command.commands.map((each) => each.name())
    if (word === undefined || word.startsWith('-') || names.includes(word)) return
    const near = names.find((name) => name.startsWith(word) || word.startsWith(name) || editDistance(name, word) <= Math.floor(word.length / 3))
    command.error(`error: unknown command '${word}' for 'bosun ${command.name()}' (its commands: ${names.join(', ')}).${near === undefined ? '' : `\n(Did you mean ${near}?)`}`, { code: 'commander.unknownCommand' })
  })
}

/** Levenshtein distance, for the few short command names of a group. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}
