import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { access, lstat, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CommandContext } from '../context.js'
import { CliErrorCodes, cliError } from '../errors.js'
import { ExitCode } from '../exit-codes.js'
import { configFilesIn, existingConfigs, type ExistingConfig } from '../init/existing-configs.js'
import { INIT_FILE_NAMES, JSON_HINTS, initConfigText, type InitFormat } from '../init/templates.js'

/** Options of `bosun init`, as commander parses them (`--format` is checked against its choices there). */
export interface InitOptions {
  format: InitFormat
  force?: boolean
}

/**
 * `bosun init`: writes the offline default config in the current folder (`bosun.config.ts`, or
 * `.json` / `.yaml` with `--format`), then says what it wrote and what to run next. A config the
 * loader would find here is never overwritten without `--force`; with it, every config of this folder
 * is checked to be replaceable, the new file is written, and the others are then removed, so that the new
 * one is the one loaded.
 */
export async function initCommand(ctx: CommandContext, options: InitOptions): Promise<number> {
  if (ctx.configFile !== undefined) {
    throw cliError(CliErrorCodes.USAGE, 'bosun init writes bosun.config.<format> in the current folder; --config names a file to load, not one to write. Run bosun init without --config, in the folder the config belongs in.')
  }
  const cwd = ctx.io.cwd
  const name = INIT_FILE_NAMES[options.format]
  const force = options.force === true
  const existing = await existingConfigs(cwd)
  refuseToReplace(existing, name, cwd, force)
  // Everything --force will replace is checked before anything is written: a refusal leaves the folder as it was.
  if (force) await checkReplaceable(cwd, existing.map((config) => config.name))

  await writeConfig(join(cwd, name), initConfigText(options.format), force)
  // Looked for again: a config that appeared since the check would otherwise be loaded instead of the new file.
  const removed = force ? (await configFilesIn(cwd)).filter((other) => other !== name) : []
  for (const other of removed) await removeConfig(join(cwd, other))

  const s = ctx.out.style
  const replaced = existing.some((config) => config.name === name)
  ctx.out.line(`${s.green(replaced ? 'Replaced' : 'Wrote')} ${s.bold(name)}: the scripted model (offline, no key; it echoes each message), sessions in .bosun/sessions.`)
  if (removed.length > 0) ctx.out.line(`Removed ${removed.join(', ')} (--force), so that ${name} is the config found here.`)
  if (options.format === 'json') for (const hint of JSON_HINTS) ctx.out.line(s.dim(hint))
  ctx.out.line()
  ctx.out.line('Next:')
  ctx.out.line(`  ${s.cyan('bosun config check')}  check it and see the agent it composes`)
  ctx.out.line(`  ${s.cyan('bosun run "hi"')}      one turn, offline`)
  return ExitCode.ok
}

/** Fails unless writing `name` leaves it the config found here: nothing there, or `--force` and no `package.json` key. */
function refuseToReplace(existing: ExistingConfig[], name: string, cwd: string, force: boolean): void {
  // The loader reads package.json#bosun before any file, and bosun init does not edit the project's package.json.
  if (existing.some((config) => config.packageKey)) {
    throw cliError(
      CliErrorCodes.CONFIG_EXISTS,
      `package.json in ${cwd} has a "bosun" key: that is the config here, and it is read before ${name} would be (--force does not edit package.json). Edit the config there, or remove the "bosun" key and run bosun init again.`,
      { existing: ['package.json'] },
    )
  }
  if (existing.length === 0 || force) return
  const names = existing.map((config) => config.name)
  throw cliError(
    CliErrorCodes.CONFIG_EXISTS,
    `${names.join(', ')} already ${names.length === 1 ? 'exists' : 'exist'} in ${cwd}: that is the config found here. bosun config check shows what it composes; bosun init --force replaces it with a new ${name}${names.some((other) => other !== name) ? ` (removing ${names.join(', ')})` : ''}.`,
    { existing: names },
  )
}

async function writeConfig(file: string, text: string, force: boolean): Promise<void> {
  // Without --force, 'wx': a file that appeared since the check is not overwritten either. With it,
  // a new file renamed over the old: a link is replaced, not written through to the file it names.
  // The temporary name is random: one left by a killed run (or another run now) is never reused.
  const target = force ? `${file}.${randomBytes(8).toString('hex')}.tmp` : file
  let created = false
  try {
    await writeFile(target, text, { flag: 'wx' })
    created = true
    if (force) await rename(target, file)
  } catch (error) {
    if (force && created) await rm(target, { force: true }).catch(() => undefined)
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST' && !force) throw cliError(CliErrorCodes.CONFIG_EXISTS, `${file} already exists: bosun init --force replaces it.`, { existing: [file] })
    throw notWritten(`Cannot write ${file}`, error, 'Fix that, then run bosun init again.')
  }
}

/**
 * Fails (CONFIG_NOT_WRITTEN) unless every config `--force` replaces can go: `rm` does not remove
 * a folder (nor should it remove one the user made), and nothing here can be removed or created
 * without write access to the folder itself.
 */
async function checkReplaceable(cwd: string, names: string[]): Promise<void> {
  try {
    await access(cwd, constants.W_OK | constants.X_OK)
  } catch (error) {
    throw notWritten(`Cannot replace the config in ${cwd}`, error, 'Nothing was written. Let the user running bosun write to the folder, then run bosun init --force again.')
  }
  for (const name of names) {
    const stats = await lstat(join(cwd, name)).catch(() => undefined)
    if (stats?.isDirectory() === true) {
      throw cliError(CliErrorCodes.CONFIG_NOT_WRITTEN, `Cannot replace ${join(cwd, name)}: it is a folder. Nothing was written. Move or remove the folder yourself, then run bosun init --force again.`, { existing: [name] })
    }
  }
}

async function removeConfig(file: string): Promise<void> {
  try {
    await rm(file, { force: true })
  } catch (error) {
    throw notWritten(`Wrote the new config, but cannot remove ${file} (--force replaces every config of the folder)`, error, 'Remove it yourself, so that the folder holds one config.')
  }
}

function notWritten(what: string, error: unknown, next: string): Error {
  const code = (error as NodeJS.ErrnoException).code ?? 'error'
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' || code === 'ERR_FS_EISDIR' ? 'it is a folder' : code
  return cliError(CliErrorCodes.CONFIG_NOT_WRITTEN, `${what}: ${why}. ${next}`, { code })
}
