import type { Command } from 'commander'
import { editDistance } from './edit-distance.js'

/**
 * A word after a command group (`bosun config foo`) that is none of its commands: commander hands
 * it to the group's default command as an argument, which then says "too many arguments for
 * 'check'" — about a command the user did not type. Said as what it is, with the group's commands.
 */
export function refuseUnknownWords(group: Command): void {
  group.hook('preSubcommand', (command) => {
    const word = command.args[0]
    const names = command.commands.map((each) => each.name())
    // A command's alias (`sessions remove` for `rm`) is one of its words too.
    if (word === undefined || word.startsWith('-') || names.includes(word) || command.commands.some((each) => each.aliases().includes(word))) return
    const near = names.find((name) => name.startsWith(word) || word.startsWith(name) || editDistance(name, word) <= Math.floor(word.length / 3))
    command.error(`error: unknown command '${word}' for 'bosun ${command.name()}' (its commands: ${names.join(', ')}).${near === undefined ? '' : `\n(Did you mean ${near}?)`}`, { code: 'commander.unknownCommand' })
  })
}
