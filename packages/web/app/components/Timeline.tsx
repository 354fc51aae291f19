import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useRef } from 'react'
import { CompactionRow } from './CompactionRow.js'
import { PendingTail } from './PendingTail.js'
import { TurnGroup } from './TurnGroup.js'
import { useApp } from './store-context.js'

/**
 * The conversation: turns and compactions in log order, virtualised (only the rows on screen are
 * in the DOM, so a 5,000-turn session opens and scrolls like a short one), with the pending tail
 * last. It follows the end while you are at the end, and stays put when you scroll up.
 */
export function Timeline() {
  const items = useApp((state) => state.view.items)
  const lastSeq = useApp((state) => state.view.lastSeq)
  const scroller = useRef<HTMLDivElement>(null)
  const atEnd = useRef(true)
  const userScroll = useRef(false)
  const markUserScroll = (): void => {
    userScroll.current = true
  }
  const count = items.length + 1
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => 140,
    overscan: 6,
    getItemKey: (index) => (index < items.length ? items[index]!.key : 'tail'),
    initialRect: { width: 800, height: typeof window === 'undefined' ? 800 : window.innerHeight },
  })

  useEffect(() => {
    if (atEnd.current && count > 0) virtualizer.scrollToIndex(count - 1, { align: 'end' })
  }, [count, lastSeq, virtualizer])

  return (
    <div
      ref={scroller}
      className="flex-1 overflow-y-auto"
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
          const item = items[row.index]
          return (
            <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${row.start}px)` }}>
              {item === undefined ? <PendingTail /> : item.kind === 'turn' ? <TurnGroup turn={item} /> : <CompactionRow compaction={item} />}
            </div>
          )
        })}
      </div>
    </div>
  )
}
