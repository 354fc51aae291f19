/** A session as the tree needs it: its id and, for a subagent's child, the parent its header names. */
export interface TreeNode {
  id: string
  /** `delegation.parentSessionId` of the header (not `parent`, which means fork origin). */
  parentSessionId?: string
}

/** One row of the tree: the node, how deep it is shown, and why it is a root when its header names a parent. */
export interface TreeRow<T extends TreeNode> {
  node: T
  level: number
  /** `orphan`: the parent it names is not in the store. `cycle`: following parents comes back to it. */
  note?: 'orphan' | 'cycle'
}

/**
 * The sessions in tree order: each parent followed by its children (depth first), siblings and
 * roots in the order given. Built from the headers alone. A child whose parent is missing is
 * shown as a root marked `orphan`; sessions whose parents form a cycle (only a hand-edited or
 * damaged store can have one) are shown from the first of them in the given order, marked
 * `cycle` — every session appears exactly once.
 */
export function treeOrder<T extends TreeNode>(nodes: readonly T[]): TreeRow<T>[] {
  const known = new Set(nodes.map((node) => node.id))
  const children = new Map<string, T[]>()
  for (const node of nodes) {
    const parent = node.parentSessionId
    if (parent === undefined || !known.has(parent)) continue
    let list = children.get(parent)
    if (!list) children.set(parent, (list = []))
    list.push(node)
  }
  const rows: TreeRow<T>[] = []
  const shown = new Set<string>()
  // Iterative, so that a deep chain cannot overflow the stack.
  const walk = (root: T, note: TreeRow<T>['note']) => {
    const stack: { node: T; level: number; note?: TreeRow<T>['note'] }[] = [{ node: root, level: 0, ...(note ? { note } : {}) }]
    while (stack.length > 0) {
      const entry = stack.pop()!
      if (shown.has(entry.node.id)) continue
      shown.add(entry.node.id)
      rows.push(entry)
      const below = children.get(entry.node.id) ?? []
      for (let i = below.length - 1; i >= 0; i--) stack.push({ node: below[i]!, level: entry.level + 1 })
    }
  }
  for (const node of nodes) {
    if (node.parentSessionId === undefined) walk(node, undefined)
    else if (!known.has(node.parentSessionId)) walk(node, 'orphan')
  }
  // What no root reaches has a parent that leads back to it.
  for (const node of nodes) if (!shown.has(node.id)) walk(node, 'cycle')
  return rows
}
