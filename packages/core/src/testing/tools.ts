// Test-only tools (excluded from the build): a tool from a bare function, and a tool the test releases by hand.
import type { Tool } from '../tools/types.js'
import { gate } from './harness.js'

/** A tool with an open argument schema. */
export function tool(name: string, execute: Tool['execute'], extra: Partial<Tool> = {}): Tool {
  return { name, description: name, parameters: { type: 'object' }, execute, ...extra }
}

/**
 * A tool that runs until the test calls `release()`, then returns `result`; it ignores the abort
 * signal. `started` resolves once its body is running.
 */
export function blockingTool(name = 'wait', result = 'waited', extra: Partial<Tool> = {}) {
  const running = gate()
  const released = gate()
  const blocking = tool(
    name,
    async () => {
      running.open()
      await released.promise
      return result
    },
    extra,
  )
  return { tool: blocking, started: running.promise, release: () => released.open() }
}
