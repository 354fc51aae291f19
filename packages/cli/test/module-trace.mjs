// Loaded with `node --import` by start.test.ts: every module the process loads (ESM and CommonJS
// through import, and CommonJS through require(), which the load hook does not see) is appended,
// one URL a line, to the file BOSUN_TEST_MODULE_TRACE names.
import { appendFileSync } from 'node:fs'
import Module, { register } from 'node:module'
import { pathToFileURL } from 'node:url'

register('./module-trace-hooks.mjs', import.meta.url, { data: { file: process.env.BOSUN_TEST_MODULE_TRACE } })

const load = Module.prototype.load
Module.prototype.load = function (filename) {
  appendFileSync(process.env.BOSUN_TEST_MODULE_TRACE, `${pathToFileURL(filename).href}\n`)
  return load.call(this, filename)
}
