// Runs Verdaccio with the config given as JSON in argv[2], on 127.0.0.1 at a port the system
// picks, and prints that port on stdout once it listens. A process of its own, as a registry is:
// its work on large package documents never competes with the test's own event loop. Its own
// log lines may come before `listening on <port>`; the test reads up to that line.
import { createRequire } from 'node:module'
import { runServer } from 'verdaccio'

// Verdaccio 6.8's search walks the storage folders and ends its walk at the first folder with no
// package.json, answering 200 with only the packages met before it. While an install runs beside
// a search, a folder exists without its package.json for a moment: Verdaccio creates the folder
// of a document it fetched from the uplink, then writes the file. A search at that moment loses
// packages that were published long before (seen under load: `search future` answered no hits).
// A folder with no package.json holds no package, so the walk passes over it here; any other
// error still ends the search as before.
const require = createRequire(import.meta.url)
const LocalStorage = require(require.resolve('verdaccio/build/lib/local-storage.js', { paths: [require.resolve('verdaccio')] })).default
const searchEachPackage = LocalStorage.prototype._searchEachPackage
LocalStorage.prototype._searchEachPackage = function (onPackage, onEnd) {
  return searchEachPackage.call(this, (item, done) => onPackage(item, (error) => done(error?.status === 404 ? null : error)), onEnd)
}

const server = await runServer(JSON.parse(process.argv[2]))
// A search answers from what was published here only: Verdaccio asks every uplink first (the npm
// registry, over the network, one after the other) unless the query has `local`. The tests search
// for what they published; the public registry's answer would make them wait on the network (a
// search took 58 s on a loaded machine, another ran out of the CLI's 60 s) and depend on what
// strangers publish with the bosun-plugin keyword. Packages are still fetched through the uplink.
server.prependListener('request', (request) => {
  if (/^\/-\/v1\/search(\?|$)/.test(request.url ?? '')) request.url += request.url.includes('?') ? '&local=1' : '?local=1'
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`))
const stop = () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
}
process.once('SIGTERM', stop)
// The test holds our stdin open: if it goes away without stopping us (a killed test run), so do we.
process.stdin.once('end', stop).resume()
