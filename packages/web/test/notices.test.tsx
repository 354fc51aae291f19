// @vitest-environment happy-dom
// The page's notices (state/notices.ts, components/Notices.tsx): each has a Dismiss button that
// removes it (the focus to the next one, else the Message box); a newer notice on the same action
// replaces the one before; information leaves on its own, not while held; errors stay.
import { fireEvent, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_NOTICES, noticeTimers, withNotice, type Notice } from '../app/state/notices.js'
import { startHost, until } from './host-harness.js'
import { clientOf, openPage, pageTests } from './page-harness.js'

const opened = pageTests()
afterEach(() => {
  vi.useRealTimers()
})

/** The page with session 's' open, against a host whose POSTs fail while `down()` says so. */
async function openFailing(down: () => boolean, infoNoticeMs?: number): Promise<HTMLTextAreaElement> {
  const harness = (opened.harness = startHost())
  await harness.client.createSession('s')
  return openPage(opened, clientOf(harness, down), 's', infoNoticeMs === undefined ? {} : { infoNoticeMs })
}

/** Types `text` in the box and presses Enter; waits until the box has it back (the send failed) or is empty. */
async function sendFailing(box: HTMLTextAreaElement, text: string): Promise<void> {
  fireEvent.change(box, { target: { value: text } })
  fireEvent.keyDown(box, { key: 'Enter' })
  await until(() => box.value === text, `"${text}" back in the box`)
  fireEvent.change(box, { target: { value: '' } })
}

describe('notices on the page', () => {
  it('a second failure of the same action replaces the first notice; Dismiss removes it and the focus goes to the Message box', async () => {
    const box = await openFailing(() => true)
    await sendFailing(box, 'one')
    await sendFailing(box, 'two')
    const alerts = screen.getAllByRole('alert')
    expect(alerts).toHaveLength(1)
    expect(alerts[0]!.textContent).toMatch(/^Queueing failed: the host could not be reached/)

    const dismiss = screen.getByRole('button', { name: 'Dismiss' })
    expect(dismiss.getAttribute('aria-describedby')).not.toBeNull()
    dismiss.focus()
    fireEvent.click(dismiss)
    await until(() => screen.queryAllByRole('alert').length === 0, 'the notice dismissed')
    expect(opened.store!.getState().notices).toEqual([])
    expect(document.activeElement).toBe(box)
  })

  it('a failure in one session does not replace another session\'s', async () => {
    const harness = (opened.harness = startHost())
    await harness.client.createSession('s')
    await harness.client.createSession('t')
    const client = clientOf(harness, () => true)
    await openPage(opened, client, 's')
    const store = opened.store!
    expect(await store.getState().send('to s', 'followup')).toBe(false)
    store.getState().select('t')
    expect(await store.getState().send('to t', 'followup')).toBe(false)
    expect(await store.getState().send('to t again', 'followup')).toBe(false)
    await until(() => screen.queryAllByRole('alert').length === 2, 'both sessions\' failures shown')
    expect(store.getState().notices.map((shown) => shown.kind)).toEqual(['error', 'error'])
  })

  it('Dismiss with no session open puts the focus on New session, not on the page\'s body', async () => {
    await openFailing(() => true)
    opened.store!.getState().select(null)
    await until(() => screen.queryByRole('textbox', { name: /Message/ }) === null, 'no Message box')
    await opened.store!.getState().createSession()
    const dismiss = await until(() => screen.queryByRole('button', { name: 'Dismiss' }), 'the failure notice')
    dismiss.focus()
    fireEvent.click(dismiss)
    await until(() => screen.queryAllByRole('alert').length === 0, 'the notice dismissed')
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'New session' }))
  })

  it('information leaves on its own, an error stays until dismissed', async () => {
    let failing = true
    const box = await openFailing(() => failing, 50)
    await sendFailing(box, 'lost')
    failing = false
    // Sent twice under one id: the host answers the second a duplicate, and the page says so (information).
    await opened.store!.getState().send('once', 'followup', 'id-once')
    await opened.store!.getState().send('once', 'followup', 'id-once')
    // Read before its timer can run (a macrotask; this continues in a microtask of the answer).
    expect(opened.store!.getState().notices.map((shown) => shown.kind)).toEqual(['error', 'info'])
    await until(() => opened.store!.getState().notices.every((notice) => notice.kind === 'error'), 'the information gone')
    expect(screen.getAllByRole('alert').map((alert) => alert.textContent)).toEqual([expect.stringMatching(/^Queueing failed/)])
    await opened.harness!.client.cancel('s', { keepInbox: false })
  })
})

describe('the notice list', () => {
  const notice = (id: number, kind: Notice['kind'], topic: string): Notice => ({ id, kind, topic, text: `${topic} ${id}` })

  it('replaces a notice on the same topic, and past MAX_NOTICES pushes out the oldest information first', () => {
    let notices: Notice[] = []
    notices = withNotice(notices, notice(1, 'error', 'Queueing'))
    notices = withNotice(notices, notice(2, 'info', 'kept-queued'))
    notices = withNotice(notices, notice(3, 'error', 'Queueing'))
    expect(notices.map((shown) => shown.id)).toEqual([2, 3])
    for (let id = 4; id < 4 + MAX_NOTICES - 1; id += 1) notices = withNotice(notices, notice(id, 'error', `topic-${id}`))
    expect(notices.map((shown) => shown.id)).toEqual([3, 4, 5, 6])
    // Information never pushes an error out: all four errors, the new information itself gives way.
    notices = withNotice(notices, notice(7, 'info', 'kept-queued'))
    expect(notices.map((shown) => shown.id)).toEqual([3, 4, 5, 6])
    // Nor does an error: each stays until dismissed.
    notices = withNotice(notices, notice(8, 'error', 'topic-8'))
    expect(notices.map((shown) => shown.id)).toEqual([3, 4, 5, 6, 8])
  })

  it('past MAX_NOTICES the oldest information goes, never an error', () => {
    let notices: Notice[] = [notice(1, 'error', 'a'), notice(2, 'error', 'b'), notice(3, 'info', 'c'), notice(4, 'error', 'd')]
    notices = withNotice(notices, notice(5, 'info', 'e'))
    expect(notices.map((shown) => shown.id)).toEqual([1, 2, 4, 5])
  })

  it('dismisses information after its time, not errors, and none while held', () => {
    vi.useFakeTimers()
    const dismissed: number[] = []
    const timers = noticeTimers(1000, (id) => dismissed.push(id))
    const info = notice(1, 'info', 'a')
    timers.shown(info)
    timers.shown(notice(2, 'error', 'b'))
    vi.advanceTimersByTime(999)
    expect(dismissed).toEqual([])
    vi.advanceTimersByTime(1)
    expect(dismissed).toEqual([1])

    const held = notice(3, 'info', 'c')
    timers.shown(held)
    timers.hold(true, [held])
    vi.advanceTimersByTime(5000)
    expect(dismissed).toEqual([1])
    timers.hold(false, [held])
    vi.advanceTimersByTime(1000)
    expect(dismissed).toEqual([1, 3])

    // Stopped (the page's dispose()): a send answered later shows its notice, but starts no timer.
    timers.shown(notice(4, 'info', 'd'))
    timers.stop()
    expect(vi.getTimerCount()).toBe(0)
    timers.shown(notice(5, 'info', 'e'))
    timers.hold(true, [])
    timers.hold(false, [notice(6, 'info', 'f')])
    expect(vi.getTimerCount()).toBe(0)
  })
})
