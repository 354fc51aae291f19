// Login attempts are limited per client address (10 a minute): under listen() the host saw no
// client's socket (host.fetch dropped the server's env), so every client shared one count and
// ten wrong guesses from anywhere locked every browser out of logging in for the minute. Real
// clients on 127.0.0.1 and 127.0.0.2.
import { expect, it } from 'vitest'
import { listen } from '../src/index.js'
import { json, makeHost, perTest } from './helpers.js'
import { requestFrom } from './from-address.js'

const t = perTest()
const TOKEN = 'a-token-of-32-random-characters!!'

it('ten wrong logins from one address leave another address free to log in', async () => {
  const { host } = makeHost(t.dir, undefined, { auth: { token: TOKEN } })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: true })
  t.closing.push(server)
  const login = (from: string, token: string) => requestFrom(from, `${server.url}/v1/login`, { method: 'POST', json: { token } })

  for (let i = 0; i < 10; i++) expect((await login('127.0.0.2', `guess-${i}`)).status).toBe(401)
  const limited = await login('127.0.0.2', TOKEN)
  expect(limited.status).toBe(429)
  expect((await json(limited)).error.code).toBe('too-many-requests')

  const other = await login('127.0.0.1', TOKEN)
  expect(other.status).toBe(200)
  expect(await json(other)).toMatchObject({ loggedIn: true })
})
