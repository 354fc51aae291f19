// A crash while a failed batch is being overwritten with zeros (its ftruncate failed): whatever
// part of the zeros had reached the disk, the file opens — a tail partly zeros and partly the
// failed batch is a torn tail, never CORRUPT_LOG (that flush was not answered yet). The page cache
// reaches the disk in any order, so at each fdatasync of the zeros every line written since the
// last one may be on the disk as zeros, as it was, or half and half. Before q19a the zeros of all
// lines were synced once, at the end: a first line zeroed before a later line was could be on the
// disk alone — zeros, then whole lines — and open() refused the file (CORRUPT_LOG).
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, fileText, header, rejection, sessionFile } from './testing/fixtures.js'
import { tempDir, type FsCall } from './testing/recording-fs.js'
import { oneSession } from './testing/one-session.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isSessionFile = (call: FsCall) => call.path.endsWith('.jsonl')

/** Every image a crash can leave of `synced` → `now`: each changed line old, new, or half of each (either half first). */
function crashImages(synced: Buffer, now: Buffer): Buffer[] {
  const lines: [number, number][] = []
  for (let start = 0; start < now.length; ) {
    const newline = synced.indexOf(0x0a, start)
    const end = newline < 0 ? now.length : newline + 1
    if (!synced.subarray(start, end).equals(now.subarray(start, end))) lines.push([start, end])
    start = end
  }
  let images = [Buffer.from(synced)]
  for (const [start, end] of lines) {
    const middle = start + Math.floor((end - start) / 2)
    images = images.flatMap((image) => [
      image,
      Buffer.concat([image.subarray(0, start), now.subarray(start, end), image.subarray(end)]),
      Buffer.concat([image.subarray(0, start), now.subarray(start, middle), image.subarray(middle)]),
      Buffer.concat([image.subarray(0, middle), now.subarray(middle, end), image.subarray(end)]),
    ])
  }
  return images
}

it('a crash at any fdatasync of the zeros leaves a file open() reads: the committed events, then at most whole lines of the rejected batch', async () => {
  const { live, fs, store, writer } = await oneSession(dir, false)
  const file = sessionFile(live, 's')

  // The batch's fdatasync fails, then the ftruncate: the zeros go over its four lines.
  let phase: 'batch' | 'cut' | 'zeros' | 'done' = 'batch'
  fs.fail = (call) => {
    if (!isSessionFile(call)) return undefined
    if (phase === 'batch' && call.op === 'datasync') return (phase = 'cut'), 'EIO'
    if (phase === 'cut' && call.op === 'truncate') return (phase = 'zeros'), 'EIO'
    return undefined
  }
  // At the cut (what the disk may hold then: the whole batch) and at each fdatasync of the zeros.
  let synced: Buffer | undefined
  let checked = 0
  let images = 0
  const problems: string[] = []
  const expected = [0, 1, 2, 3, 4].map((seq) => event(seq))
  const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
  fs.hold = (call) => {
    if (!isSessionFile(call)) return undefined
    if (call.op === 'truncate' && phase === 'cut') return readFile(file).then((bytes) => void (synced = bytes))
    if (call.op !== 'datasync' || phase !== 'zeros') return undefined
    return (async () => {
      const now = await readFile(file)
      for (const image of crashImages(synced!, now)) {
        const at = join(dir, `image-${images++}`)
        await mkdir(at)
        await writeFile(sessionFile(at, 's'), image)
        const recovered = jsonlStore({ dir: at })
        // Kept, not thrown: a throw here would only fail the held fdatasync.
        const seqs = await recovered.open('s').then(
          async (opened) => (await opened!.writer.close(), opened!.events),
          (error: Error) => (problems.push(error.message), []),
        )
        if (seqs.length > 0 && !equal(seqs, expected.slice(0, seqs.length))) problems.push(`image ${images - 1}: wrong events`)
        await recovered.close()
      }
      synced = now
      checked++
    })()
  }
  for (const seq of [1, 2, 3, 4]) writer.append(event(seq))
  expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: true })
  phase = 'done'
  fs.hold = () => undefined
  // Before q19a: CORRUPT_LOG for the images with a line's zeros on the disk before a later line's.
  expect(problems).toEqual([])
  expect(checked).toBeGreaterThanOrEqual(1)
  expect(images).toBeGreaterThan(4)
  // The zeros reached the disk: the rejected batch is gone after a crash now.
  const image = join(dir, 'after')
  await mkdir(image)
  await copyFile(file, sessionFile(image, 's'))
  const after = jsonlStore({ dir: image })
  expect((await after.read!('s'))!.events).toEqual([event(0)])

  fs.fail = () => undefined
  await writer.flush()
  await store.close()
  expect(await readFile(file, 'utf8')).toBe(fileText(header('s'), [0, 1, 2, 3, 4].map((seq) => event(seq))))
})
