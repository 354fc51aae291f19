// The `bosun` command's start, as a user feels it: wall time from spawning `node bin.js <args>`
// to the process's exit, in a fresh project folder (no config: the scripted model, JSONL sessions
// under .bosun/), for a few commands. docs/benchmarks.md, "The CLI's start".
//
//   node benchmarks/cli-start.mjs [--before <git-ref>] [--bin <label>=<bin.js>]… [--runs 15] [--command "<args>"]…
//
// Every build is timed in every round, the builds' order alternating round by round, so that a
// busier moment of a shared machine hits both alike. `node -e ""` is timed too: what any Node
// program pays before its first line. `--before <git-ref>` builds packages/cli and what it
// references as they were at <git-ref> into a temporary folder (the working tree is not touched)
// and times it against this tree's packages/cli/dist (run `npx tsc -b tsconfig.build.json` first).
// Each build gets its own project folder, so `sessions list` finds as many sessions in each.
// Besides the wall time, each process's own CPU time (user + system, from process.resourceUsage()
// at its exit, written by a preloaded one-line module): on a shared machine the wall time waits
// for the cores too, the CPU time much less.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const USAGE = `usage: node benchmarks/cli-start.mjs [--before <git-ref>] [--bin <label>=<path to bin.js>]... [--runs <n>=15] [--command "<args>"]...
  default commands: --version, --help, run hello, sessions list, log <a session>, config check
  default build: this tree's packages/cli/dist/bin.js (label "tree")`

let parsed
try {
  parsed = parseArgs({
    options: {
      before: { type: 'string' },
      bin: { type: 'string', multiple: true },
      runs: { type: 'string', default: '15' },
      command: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  }).values
} catch (error) {
  console.error(`${error.message}\n${USAGE}`)
  process.exit(2)
}
if (parsed.help) {
  console.log(USAGE)
  process.exit(0)
}
const runs = Number(parsed.runs)
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error(`--runs must be a whole number (1 or more)\n${USAGE}`)
  process.exit(2)
}

const work = mkdtempSync(join(tmpdir(), 'bosun-cli-start-'))
const cpuFile = join(work, 'cpu')
const preload = join(work, 'cpu-at-exit.mjs')
writeFileSync(preload, `import { writeFileSync } from 'node:fs'\nprocess.on('exit', () => { const u = process.resourceUsage(); writeFileSync(${JSON.stringify(cpuFile)}, String((u.userCPUTime + u.systemCPUTime) / 1000)) })\n`)
try {
  const builds = []
  if (parsed.before !== undefined) builds.push({ label: `before (${parsed.before})`, bin: buildAt(parsed.before) })
  for (const entry of parsed.bin ?? []) {
    const at = entry.indexOf('=')
    if (at < 1) throw new Error(`--bin wants <label>=<path to bin.js>, got "${entry}"`)
    builds.push({ label: entry.slice(0, at), bin: resolve(entry.slice(at + 1)) })
  }
  if (parsed.bin === undefined) builds.push({ label: 'tree', bin: join(root, 'packages/cli/dist/bin.js') })
  for (const [i, build] of builds.entries()) {
    if (!existsSync(build.bin)) throw new Error(`${build.bin} does not exist (build it first: npx tsc -b tsconfig.build.json)`)
    build.project = join(work, `project-${i}`)
    mkdirSync(build.project)
    // One session for `log` and `sessions list` to read; `run` adds one per run in every build alike.
    run(build, ['run', 'hello'])
    build.session = readdirSync(join(build.project, '.bosun/sessions')).find((f) => f.endsWith('.jsonl')).replace(/\.jsonl$/, '')
  }
  const commands = parsed.command?.map((c) => c.split(' ').filter(Boolean)) ?? [['--version'], ['--help'], ['run', 'hello'], ['sessions', 'list'], ['log', '<session>'], ['config', 'check']]
  const rows = [{ label: 'node -e ""', args: null, times: { all: [] }, cpu: { all: [] } }]
  for (const args of commands) {
    const empty = () => Object.fromEntries(builds.map((b) => [b.label, []]))
    rows.push({ label: `bosun ${args.join(' ')}`, args, times: empty(), cpu: empty() })
  }
  const load = [loadavg()[0]]
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse()
    for (const row of rows) {
      if (row.args === null) {
        row.times.all.push(time(() => spawnSync(process.execPath, ['--import', preload, '-e', ''])))
        row.cpu.all.push(Number(readFileSync(cpuFile, 'utf8')))
      } else {
        for (const build of order) {
          row.times[build.label].push(time(() => run(build, row.args.map((a) => (a === '<session>' ? build.session : a)), ['--import', preload])))
          row.cpu[build.label].push(Number(readFileSync(cpuFile, 'utf8')))
        }
      }
    }
    process.stderr.write(`round ${round + 1}/${runs}\r`)
  }
  load.push(loadavg()[0])
  const stat = (xs) => {
    const s = [...xs].sort((a, b) => a - b)
    const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
    return `${s[0].toFixed(0)} / **${median.toFixed(0)}** / ${s.at(-1).toFixed(0)}`
  }
  console.log(`\n${runs} interleaved runs each; ms, min / **median** / max; Node ${process.version}; load average (1 min) ${load.map((l) => l.toFixed(2)).join(' → ')}\n`)
  const labels = builds.map((b) => b.label)
  console.log(`| command | ${labels.map((l) => `${l}: wall`).join(' | ')} | ${labels.map((l) => `${l}: CPU`).join(' | ')} |`)
  console.log(`|---|${[...labels, ...labels].map(() => '---:').join('|')}|`)
  for (const row of rows) {
    const cells = (of) => labels.map((l) => stat(row.args === null ? of.all : of[l]))
    console.log(`| \`${row.label}\` | ${[...cells(row.times), ...cells(row.cpu)].join(' | ')} |`)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

/** Runs one command of a build in its project folder; a failure stops the benchmark (a broken build would time its error path). */
function run(build, args, nodeArgs = []) {
  const result = spawnSync(process.execPath, [...nodeArgs, build.bin, ...args], { cwd: build.project, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${build.label}: bosun ${args.join(' ')} exited ${result.status}:\n${result.stderr}`)
  return result
}

function time(fn) {
  const start = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

/**
 * packages/ as it was at `ref`, built (packages/cli and its references) in the temporary folder.
 * Each package's node_modules is copied as the links it is: the workspace's links point inside
 * the copy (its @bosun packages are the old ones), the others into this tree's node_modules.
 */
function buildAt(ref) {
  const old = join(work, 'before')
  mkdirSync(old)
  const tar = execFileSync('git', ['archive', ref, 'tsconfig.base.json', 'packages'], { cwd: root, maxBuffer: 1 << 30 })
  execFileSync('tar', ['-x', '-C', old], { input: tar })
  symlinkSync(join(root, 'node_modules'), join(old, 'node_modules'))
  const packages = execFileSync('git', ['ls-tree', '-d', '-r', '--name-only', ref, 'packages'], { cwd: root, encoding: 'utf8' }).split('\n')
  for (const pkg of packages) {
    const modules = join(root, pkg, 'node_modules')
    if (pkg !== '' && existsSync(modules) && existsSync(join(old, pkg))) cpSync(modules, join(old, pkg, 'node_modules'), { recursive: true, verbatimSymlinks: true })
  }
  process.stderr.write(`building packages/cli at ${ref}…\n`)
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', join(old, 'packages/cli/tsconfig.json')], { stdio: 'inherit' })
  return join(old, 'packages/cli/dist/bin.js')
}
