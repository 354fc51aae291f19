/**
 * The store journal's size (journal.ts): when it starts over, and how it grows.
 *
 * Why overwrite, not truncate and append: an fdatasync after an append must also commit the
 * file's new size (on ext4 a journal commit of the file system's metadata, with everyone else's
 * pending metadata in it); after an overwrite of blocks the file already has, it flushes data
 * only. So the journal is grown ahead of its writes with zeros ({@link EXTEND_BYTES} at first,
 * then doubling, in the same write + fdatasync as the flush that needs the room) and reused after
 * each checkpoint: after a few flushes, a flush's fdatasync no longer changes the file's size.
 * (Measured: docs/benchmarks.md, section 4.) What lies past the current generation's last record
 * — zeros, or records of an earlier generation — ends the journal when it is read
 * (journal-format.ts).
 */
export const CHECKPOINT_BYTES = 4 * 1024 * 1024
/**
 * @internal The checkpoint size a store's journal gets, for tests that need generations to turn
 * over in a few flushes. Not exported from the package.
 */
export const journalTuning = { checkpointBytes: CHECKPOINT_BYTES }

/** The first extent the journal is grown to with zeros; later extents double, up to the checkpoint size. */
export const EXTEND_BYTES = 64 * 1024

/**
 * The file length a flush ending at `end` leaves, the file being `allocated` bytes now: the
 * current one if `end` fits in it; else grown ahead (at least {@link EXTEND_BYTES}, then
 * doubling up to the checkpoint size), so that the flushes after it overwrite instead of appending.
 */
export function journalRoom(allocated: number, end: number, checkpointBytes: number): number {
  if (end <= allocated) return allocated
  let target = Math.max(EXTEND_BYTES, Math.min(2 * allocated, checkpointBytes + EXTEND_BYTES))
  while (target < end) target += EXTEND_BYTES
  return target
}
