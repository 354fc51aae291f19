// Where the browser tests stand on this machine: with Chromium they run (web.*.test.ts); without it
// they are left out with one line saying how to enable them — except in CI (CI=true), where a
// missing browser fails the run.
import { expect, it } from 'vitest'
import { chromiumPath, hasChromium } from './harness.js'

it('has Chromium for the browser tests (required in CI)', () => {
  if (!hasChromium && process.env.CI !== 'true') {
    console.log(`web UI browser tests not run: no Chromium at ${chromiumPath} — install it (apt-get install -y chromium) or set BOSUN_CHROMIUM to a Chromium binary to run them`)
    return
  }
  expect(hasChromium, `Chromium is required in CI at ${chromiumPath} (.ci/run installs Debian's chromium)`).toBe(true)
})
