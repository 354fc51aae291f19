// Before/after of Bosun's own packages, for the fixes recorded in docs/benchmarks.md:
//   node benchmarks/ab.mjs <git-ref> [rounds=5]
// Builds @bosun/core and @bosun/plugin-store-jsonl as they were at <git-ref> (into a temporary
// directory), then runs benchmarks/child.mjs for the Bosun contender — figure 1's turn (memory and
// JSONL stores, 100 prior messages) and figure 3's 1,000 × 10-character answer — alternating the
// built `dist` of <git-ref> and of the working tree round by round (old, new, old, new, …), so that
// machine drift hits both alike. Run `npx tsc -b tsconfig.build.json` first; the working tree's
// `dist` is restored at the end, even on failure. Prints one line per configuration.
import { execFileSync, execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { abArgs } from './lib/ab-args.mjs'
import { median } from './lib/children.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
// Before anything is built or swapped: help, and arguments that are not a ref and a count.
const { ref, rounds: roundsArg } = abArgs('usage: node benchmarks/ab.mjs <git-ref> [rounds=5]   (swaps the built dist of packages/core and packages/plugins/store-jsonl in this tree while it runs)')
const PACKAGES = ['packages/core', 'packages/plugins/store-jsonl']
const CONFIGS = [
  { name: 'figure 1, memory store (ms / turn)', variant: 'memory', prior: 100, chunks: 10, samples: 40, warmup: 10 },
  { name: 'figure 1, JSONL store (ms / turn)', variant: 'jsonl', prior: 100, chunks: 10, samples: 20, warmup: 5 },
  // 1,000 deltas: ms per turn reads as µs per delta.
  { name: 'figure 3, 1,000 × 10 ch (µs / delta)', variant: 'memory', prior: 10, chunks: 1000, samples: 20, warmup: 5 },
]

const work = mkdtempSync(join(tmpdir(), 'bosun-ab-'))
const saved = join(work, 'saved')
/** Packages whose working-tree dist is saved (only those are swapped, and restored). */
const swappable = []
try {
  // The old sources, built against the workspace's node_modules.
  const old = join(work, 'old')
  mkdirSync(old)
  const tar = execFileSync('git', ['archive', ref, 'tsconfig.base.json', ...PACKAGES], { cwd: root, maxBuffer: 1 << 28 })
  execFileSync('tar', ['-x', '-C', old], { input: tar })
  symlinkSync(join(root, 'node_modules'), join(old, 'node_modules')) // @types/node and friends
  for (const pkg of PACKAGES) {
    symlinkSync(join(root, pkg, 'node_modules'), join(old, pkg, 'node_modules'))
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(old, pkg, 'tsconfig.json'), '--noCheck'], { stdio: 'inherit' })
  }
  for (const pkg of PACKAGES) {
    cpSync(join(root, pkg, 'dist'), join(saved, pkg), { recursive: true })
    swappable.push(pkg)
  }
  const use = (which) => {
    for (const pkg of PACKAGES) {
      rmSync(join(root, pkg, 'dist'), { recursive: true, force: true })
      cpSync(join(which === 'old' ? old : saved, pkg, which === 'old' ? 'dist' : ''), join(root, pkg, 'dist'), { recursive: true })
    }
  }
  const rounds = Number(roundsArg)
  for (const c of CONFIGS) {
    const medians = { old: [], new: [] }
    for (let r = 0; r < rounds; r++) {
      for (const which of ['old', 'new']) {
        use(which)
        const config = { contender: 'bosun', variant: c.variant, prior: c.prior, chunks: c.chunks, chunkSize: 10, samples: c.samples, warmup: c.warmup }
        const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'child.mjs'), JSON.stringify(config)], { cwd: here, maxBuffer: 1 << 26 })
        const result = JSON.parse(stdout.trim().split('\n').pop())
        if (!result.ok) throw new Error(`${which}: ${result.reason}`)
        medians[which].push(median(result.wallMs))
      }
    }
    const show = (xs) => `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)})`
    console.log(`${c.name}: ${ref} ${show(medians.old)} → working tree ${show(medians.new)}; ${(median(medians.old) / median(medians.new)).toFixed(2)}× (median of ${rounds} round medians, min–max)`)
  }
} finally {
  try {
    for (const pkg of swappable) {
      rmSync(join(root, pkg, 'dist'), { recursive: true, force: true })
      cpSync(join(saved, pkg), join(root, pkg, 'dist'), { recursive: true })
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
