// Runs Verdaccio with the config given as JSON in argv[2], on 127.0.0.1 at a port the system
// picks, and prints that port on stdout once it listens. A process of its own, as a registry is:
// its work on large package documents never competes with the test's own event loop. Its own
// log lines may come before `listening on <port>`; the test reads up to that line.
import { runServer } from 'verdaccio'

const server = await runServer(JSON.parse(process.argv[2]))
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`))
const stop = () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
}
process.once('SIGTERM', stop)
// The test holds our stdin open: if it goes away without stopping us (a killed test run), so do we.
process.stdin.once('end', stop).resume()
