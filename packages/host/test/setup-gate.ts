import { definePlugin, type Plugin } from '@bosun/core'

/**
 * A plugin whose setup waits until the test calls `open()`, counting the setups that reached it
 * (every agent built with it, on any host, shares the gate): the window between a new session's
 * look-up and its create in the store (core createAgent runs the setups in between) held open for
 * exactly as long as the test needs, without sleeps.
 */
export function setupGate(): { plugin: Plugin; open(): void; readonly entered: number } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  let entered = 0
  const plugin = definePlugin({
    name: 'setup-gate',
    async setup() {
      entered++
      await opened
    },
  })
  return { plugin, open: () => open(), get entered() { return entered } }
}
