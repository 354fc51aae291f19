/**
 * A browser's cookie handling for the component tests, around a real in-process host.
 *
 * happy-dom models what a page's script sees: its `Request` drops a `Cookie` header and its
 * `Response` drops `Set-Cookie`, as a browser hides them from scripts. But the browser's network
 * layer does see them — it stores the login cookie and sends it back — and the host runs in this
 * same realm, building its answers with the global `Response`. So `allowSetCookie()` lets the
 * host's responses keep `Set-Cookie` (undone by the returned function), and `cookieFetch` plays
 * the network layer: it keeps the cookie the host sets and sends it on later requests.
 */
export function allowSetCookie(): () => void {
  const PageResponse = globalThis.Response
  class HostResponse extends PageResponse {
    constructor(...[body, init]: ConstructorParameters<typeof Response>) {
      super(body, init)
      const set = new Headers(init?.headers).get('set-cookie')
      if (set !== null) this.headers.set('set-cookie', set)
    }
  }
  globalThis.Response = HostResponse as typeof Response
  return () => {
    globalThis.Response = PageResponse
  }
}

/** A fetch over `serve` (the host's `fetch`) that keeps the cookie it sets (unless `keeps: false`); `cookie()` reads it. */
export function cookieFetch(serve: (request: Request) => Promise<Response>, { keeps = true }: { keeps?: boolean } = {}): { fetch: typeof fetch; cookie(): string | undefined } {
  let cookie: string | undefined
  const wrapped: typeof fetch = async (input, init) => {
    const request = new Request(input as string, init)
    if (cookie !== undefined) request.headers.set('cookie', cookie) // after construction: set by the "network layer"
    const response = await serve(request)
    const set = response.headers.get('set-cookie')
    // keeps: false — a browser that drops the cookie (a Secure one set over plain HTTP, cookies blocked).
    if (set !== null && keeps) {
      const pair = set.split(';')[0]!
      cookie = /Max-Age=0/i.test(set) ? undefined : pair
    }
    return response
  }
  return { fetch: wrapped, cookie: () => cookie }
}
