/**
 * Slots (array elements, object fields) the folds have copied, in total: a test reads it to check
 * that a batch costs what it adds, not the size of the session — counting work, not wall time.
 */
export const foldWork = { copiedSlots: 0 }
