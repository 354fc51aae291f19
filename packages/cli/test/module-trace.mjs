// Loaded with `node --import` by start.test.ts: every module the process loads (ESM and CommonJS
// through import) is appended, one URL a line, to the file BOSUN_TEST_MODULE_TRACE names.
import { register } from 'node:module'

register('./module-trace-hooks.mjs', import.meta.url, { data: { file: process.env.BOSUN_TEST_MODULE_TRACE } })
