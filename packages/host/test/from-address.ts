// A request from another address of the loopback network (127.0.0.2, …): another client to a
// host listening on 127.0.0.1, as far as the host can tell (it counts clients by address).
import { request as httpRequest } from 'node:http'
import { Readable } from 'node:stream'

/** `init.method` (GET) of `url` with an optional JSON body and headers, sent from the local address `from`, as a fetch Response. */
export function requestFrom(from: string, url: string, init: { method?: string; json?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<Response> {
  const body = init.json === undefined ? undefined : JSON.stringify(init.json)
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, {
      method: init.method ?? 'GET',
      localAddress: from,
      ...(init.signal ? { signal: init.signal } : {}),
      headers: { ...init.headers, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }) },
    }, (res) => {
      const headers = new Headers()
      // set-cookie comes as a list.
      for (const [name, value] of Object.entries(res.headers)) for (const one of [value ?? []].flat()) headers.append(name, one)
      resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status: res.statusCode!, headers }))
    })
    sent.on('error', reject)
    sent.end(body)
  })
}
