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
    notices = withNotice(notices, notice(7, 'info', 'kept-queued'))
    expect(notices.map((shown) => shown.id)).toEqual([4, 5, 6, 7])
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
  })
})
