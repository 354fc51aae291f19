/**
 * A stream client as a browser would be: it reads a session's SSE stream from one host and, when
 * that connection breaks (the host was killed), reconnects to the next live host with
 * `Last-Event-ID` set to the last seq it received. It records every event's seq and checks, as
 * they come, that each is the one after the last (no gap, no duplicate).
 */
export class StreamClient {
  /** Seqs received, in order. */
  readonly seqs: number[] = []
  /** Times (ms since epoch) at which each seq arrived. */
  readonly arrivals: number[] = []
  readonly problems: string[] = []
  readonly types: string[] = []
  resumes = 0
  #stopped = false
  #abort: AbortController | undefined
  #done: Promise<void> | undefined

  constructor(readonly session: string, readonly hosts: () => string[], readonly first: number) {}

  get lastSeq(): number {
    return this.seqs.length === 0 ? -1 : this.seqs[this.seqs.length - 1]!
  }

  start(): void {
    this.#done = this.#run()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#abort?.abort()
    await this.#done
  }

  async #run(): Promise<void> {
    let attempt = 0
    while (!this.#stopped) {
      const hosts = this.hosts()
      const url = hosts[(this.first + attempt) % hosts.length]!
      attempt++
      this.#abort = new AbortController()
      try {
        const response = await fetch(`${url}/v1/sessions/${this.session}/stream`, {
          headers: this.seqs.length === 0 ? {} : { 'last-event-id': String(this.lastSeq) },
          signal: this.#abort.signal,
        })
        if (response.status !== 200 || !response.body) {
          this.problems.push(`stream on ${url}: HTTP ${response.status} ${await response.text()}`)
          await new Promise((r) => setTimeout(r, 100))
          continue
        }
        await this.#read(response.body)
      } catch {
        // The host went away (or the client stopped): resume on the next host from the last seq.
      }
      if (!this.#stopped) this.resumes++
    }
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true })
      let index: number
      while ((index = buffer.indexOf('\n\n')) !== -1) {
        const raw = buffer.slice(0, index)
        buffer = buffer.slice(index + 2)
        let event = 'message'
        let id: string | undefined
        let data: string | undefined
        for (const line of raw.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7)
          else if (line.startsWith('id: ')) id = line.slice(4)
          else if (line.startsWith('data: ')) data = line.slice(6)
        }
        if (event !== 'session.event' || id === undefined) continue
        const seq = Number(id)
        if (seq !== this.lastSeq + 1) this.problems.push(`session ${this.session}: got seq ${seq} after ${this.lastSeq}`)
        this.seqs.push(seq)
        this.arrivals.push(Date.now())
        this.types.push((JSON.parse(data ?? '{}') as { type?: string }).type ?? '?')
      }
    }
  }
}
