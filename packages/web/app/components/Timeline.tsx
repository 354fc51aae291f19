import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useMemo, useRef } from 'react'
import { createDisclosure, DisclosureContext, type Disclosure } from '../state/disclosure.js'
import { estimateRowHeight } from '../state/row-size.js'
import { CompactionRow } from './CompactionRow.js'
import { PendingTail } from './PendingTail.js'
import { TurnGroup } from './TurnGroup.js'
import { useApp } from './store-context.js'

/**
 * The conversation: turns and compactions in log order, virtualised (only the rows on screen are
 * in the DOM, so a 5,000-turn session opens and scrolls like a short one), with the pending tail
 * last. It follows the end while you are at the end, and stays put when you scroll up. What the
 * reader collapsed or opened is kept per session outside the rows (disclosure.ts), so it survives
 * a row being scrolled out of the DOM and back.
 */
export function Timeline() {
  const items = useApp((state) => state.view.items)
  const lastSeq = useApp((state) => state.view.lastSeq)
  const selected = useApp((state) => state.selected)
  const disclosures = useRef(new Map<string | null, Disclosure>())
  const disclosure = useMemo(() => {
    let found = disclosures.current.get(selected)
    if (found === undefined) disclosures.current.set(selected, (found = createDisclosure()))
    return found
  }, [selected])
  const scroller = useRef<HTMLDivElement>(null)
  const atEnd = useRef(true)
  const userScroll = useRef(false)
  const markUserScroll = (): void => {
    userScroll.current = true
  }
  const count = items.length + 1
  // Stable while the rows are: a new key function makes the virtualiser lay out every row again
  // (5,000 in a long session) on each render, and scrolling renders every frame.
  const getItemKey = useCallback((index: number) => (index < items.length ? items.get(index)!.key : 'tail'), [items])
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => estimateRowHeight(items.get(index)),
    overscan: 6,
    getItemKey,
    initialRect: { width: 800, height: typeof window === 'undefined' ? 800 : window.innerHeight },
  })

  // Each session opens at its end: the reader's scroll up was in the session they left (this effect
  // runs before the one below, so the new session's rows are followed from its first render).
  useEffect(() => {
    atEnd.current = true
    userScroll.current = false
  }, [selected])

  useEffect(() => {
    if (atEnd.current && count > 0) virtualizer.scrollToIndex(count - 1, { align: 'end' })
  }, [count, lastSeq, virtualizer])

  return (
    <DisclosureContext.Provider value={disclosure}>
      <div
        ref={scroller}
        // A word wider than its box (a URL, a path, base64) breaks instead of widening the conversation.
        // Never squeezed below a few lines: the queue dock gives way first (QueueDock.tsx).
        className="min-h-[min(12rem,20vh)] flex-1 overflow-y-auto [overflow-wrap:anywhere]"
        role="log"
        aria-label="Conversation"
        tabIndex={0}
        data-last-seq={lastSeq}
        onWheel={markUserScroll}
        onPointerDown={markUserScroll}
        onTouchStart={markUserScroll}
        onKeyDown={markUserScroll}
        onScroll={(event) => {
          const element = event.currentTarget
          const nearEnd = element.scrollHeight - element.scrollTop - element.clientHeight < 48
          // Only the reader leaves the end: the list's own scrolling (following new rows, correcting
          // measured heights) never does, so a fast stream cannot unstick it.
          if (nearEnd) {
            atEnd.current = true
            userScroll.current = false
          } else if (userScroll.current) atEnd.current = false
        }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = items.get(row.index)
            return (
              <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${row.start}px)` }}>
                {item === undefined ? <PendingTail /> : item.kind === 'turn' ? <TurnGroup turn={item} /> : <CompactionRow compaction={item} />}
              </div>
            )
          })}
        </div>
      </div>
    </DisclosureContext.Provider>
  )
}
