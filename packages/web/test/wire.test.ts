import { describe, expectTypeOf, it } from 'vitest'
import type { BosunEventMap, InboxSplice, TurnEndReason as CoreTurnEndReason } from '@bosun/core'
import type { SubagentSettled } from '@bosun/plugin-subagents'
import type { Chunk, EventData, Splice, TurnEndReason, Usage } from '../app/state/wire.js'

// The page reads core's event types, imported (types only) rather than copied: a change in core
// shows up here at type-check time (`npx tsc -p packages/web/tsconfig.app.json`, the root tsconfig).
describe('the wire types are core\'s', () => {
  it('the splice outcome, turn end reasons, chunks and usage are core\'s own', () => {
    expectTypeOf<Splice['outcome']>().toEqualTypeOf<InboxSplice['outcome']>()
    expectTypeOf<'moved'>().toExtend<NonNullable<Splice['outcome']>>()
    expectTypeOf<TurnEndReason>().toEqualTypeOf<CoreTurnEndReason>()
    expectTypeOf<Chunk>().toEqualTypeOf<BosunEventMap['assistant/chunk']['chunk']>()
    expectTypeOf<Usage>().toEqualTypeOf<NonNullable<BosunEventMap['assistant/message']['usage']>>()
    expectTypeOf<EventData['tool/result']>().toEqualTypeOf<BosunEventMap['tool/result']>()
    expectTypeOf<EventData['subagent/settled']>().toEqualTypeOf<SubagentSettled>()
  })
})
