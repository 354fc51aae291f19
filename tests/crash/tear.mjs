// Test-only tear layers for the crash campaign: they kill the process (SIGKILL, from inside) in
// the middle of the first batch a store writes, leaving on disk exactly what a crash there
// leaves. Nothing here is part of a store: the JSONL layer wraps the store's injectable file
// system (its `fs` option), the SQLite one patches the better-sqlite3 module this process loaded.
import { writeSync } from 'node:fs'
import { createRequire } from 'node:module'

/** Says on stdout (synchronously: nothing is flushed after a SIGKILL) what was torn, then dies. */
function die(what) {
  writeSync(1, `TORN ${what}\n`)
  process.kill(process.pid, 'SIGKILL')
}

/**
 * How many bytes of a batch survive, by `cut` = `<mode>:<n>`: `last` keeps every line but the last
 * (for a repair, the one its order must allow to be lost), `line` ends at the n-th line boundary
 * (0: nothing), `byte` after n bytes, mid-line. Always fewer than the whole batch.
 */
export function survivingBytes(bytes, cut) {
  const [mode, text] = cut.split(':')
  const n = Number(text)
  const ends = [0]
  for (let i = bytes.indexOf(0x0a); i >= 0 && i < bytes.length - 1; i = bytes.indexOf(0x0a, i + 1)) ends.push(i + 1)
  if (mode === 'last') return ends[ends.length - 1]
  if (mode === 'line') return ends[n % ends.length]
  if (mode === 'byte') return n % bytes.length
  throw new Error(`unknown cut ${cut}`)
}

/**
 * A JSONL `StoreFileSystem` over `base` whose first write to a session file opened for writing
 * writes only the surviving bytes, then kills the process. The store's default file system writes
 * a batch with the handle's synchronous `writeSync` (then fdatasyncs it): that is torn here, the
 * surviving bytes left in the page cache, which a SIGKILL does not lose. A handle without
 * `writeSync` is torn in its asynchronous `write`, the surviving bytes fdatasynced before the
 * kill. Reads, the torn-tail cut of `open` and everything else pass through.
 */
export function tearingFileSystem(base, cut) {
  let armed = true
  return {
    ...base,
    async open(path, flags, mode) {
      const handle = await base.open(path, flags, mode)
      if (flags !== 'r+') return handle
      const torn = {
        ...handle,
        async write(buffer, offset, length, position) {
          if (!armed) return handle.write(buffer, offset, length, position)
          armed = false
          const batch = Buffer.from(buffer.buffer, buffer.byteOffset + offset, length)
          const keep = survivingBytes(batch, cut)
          for (let done = 0; done < keep; ) done += (await handle.write(batch, done, keep - done, position + done)).bytesWritten
          await handle.datasync()
          die(`jsonl ${keep}/${length} bytes (${cut})`)
          return new Promise(() => {})
        },
      }
      if (handle.writeSync) {
        torn.writeSync = (buffer, offset, length, position) => {
          if (!armed) return handle.writeSync(buffer, offset, length, position)
          armed = false
          const batch = Buffer.from(buffer.buffer, buffer.byteOffset + offset, length)
          const keep = survivingBytes(batch, cut)
          for (let done = 0; done < keep; ) done += handle.writeSync(batch, done, keep - done, position + done)
          die(`jsonl ${keep}/${length} bytes (${cut}, writeSync)`)
          throw new Error('unreachable: the process was killed')
        }
      }
      return torn
    },
  }
}

/**
 * Makes the first commit round of the SQLite store in this process die inside its transaction:
 * before its (killAt+1)-th event insert, or at its COMMIT if it inserts fewer. Patches
 * better-sqlite3's Statement.run, resolved from the store package (the module instance the
 * store uses).
 */
export function killInsideFirstCommit(killAt) {
  const require = createRequire(import.meta.resolve('@bosun/plugin-store-sqlite'))
  const Database = require('better-sqlite3')
  const probe = new Database(':memory:')
  const Statement = probe.prepare('SELECT 1').constructor
  probe.close()
  const run = Statement.prototype.run
  let inserted = 0
  Statement.prototype.run = function (...args) {
    if (this.source.startsWith('INSERT INTO events')) {
      if (inserted === killAt) die(`sqlite before insert ${inserted + 1}, transaction open`)
      inserted++
    } else if (this.source === 'COMMIT' && inserted > 0) {
      die(`sqlite at COMMIT after ${inserted} inserts`)
    }
    return run.apply(this, args)
  }
}
