/**
 * What the page knows about its connection to the host, read off the client's own fetches: the
 * client resumes a dropped stream by itself (`?after=<last seq>`), and this wrapper only notices
 * when a stream's body ends or breaks and when the next attempt is answered, so the page can say
 * "reconnecting (attempt n)" without a second reconnect loop of its own.
 */
export interface ConnectionState {
  state: 'connecting' | 'live' | 'reconnecting'
  /** Failed or dropped attempts since the stream was last live. */
  retries: number
}

export function watchStreams(fetchImpl: typeof fetch, report: (change: (previous: ConnectionState) => ConnectionState) => void): typeof fetch {
  const isStream = (input: Parameters<typeof fetch>[0]): boolean => /\/v1\/sessions\/[^/]+\/stream/.test(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
  const dropped = (): void => report((previous) => ({ state: 'reconnecting', retries: previous.state === 'reconnecting' ? previous.retries : previous.retries + 1 }))
  return async (input, init) => {
    if (!isStream(input)) return fetchImpl(input, init)
    let response: Response
    try {
      response = await fetchImpl(input, init)
    } catch (error) {
      if (init?.signal?.aborted !== true) report((previous) => ({ state: 'reconnecting', retries: previous.retries + 1 }))
      throw error
    }
    if (!response.ok || response.body === null) {
      if (response.status >= 500) report((previous) => ({ state: 'reconnecting', retries: previous.retries + 1 }))
      return response
    }
    report(() => ({ state: 'live', retries: 0 }))
    const reader = response.body.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) {
            if (init?.signal?.aborted !== true) dropped()
            controller.close()
          } else controller.enqueue(value)
        } catch (error) {
          if (init?.signal?.aborted !== true) dropped()
          controller.error(error)
        }
      },
      cancel: (reason) => reader.cancel(reason),
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}
