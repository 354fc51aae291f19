import { memo, useId } from 'react'
import { disclosureKey, useDisclosure } from '../state/disclosure.js'
import { formatDuration, formatUsage, stepDuration } from '../state/select.js'
import type { StepView } from '../state/view.js'
import { messageText } from '../state/wire.js'
import { AnswerText } from './AnswerText.js'
import { ChildCard } from './ChildCard.js'
import { Reasoning } from './Reasoning.js'
import { RetryRow } from './RetryRow.js'
import { ToolCard } from './ToolCard.js'

/**
 * One step: the input that entered it (a steer is marked), then reasoning, text and tool cards.
 * Collapsible; collapsed stays collapsed when the row is scrolled away and back (disclosure.ts).
 */
export const StepBlock = memo(function StepBlock({ turn, step }: { turn: number; step: StepView }) {
  const [open, setOpen] = useDisclosure(disclosureKey.step(turn, step.step), true)
  const body = useId()
  const duration = stepDuration(step)
  const usage = formatUsage(step.usage)
  return (
    <section aria-label={`Step ${step.step}`} className="rounded border border-slate-200">
      <h3 className="text-xs text-slate-700">
        <button type="button" aria-expanded={open} aria-controls={body} onClick={() => setOpen(!open)} className="flex w-full items-center gap-2 px-2 py-1 text-left hover:bg-slate-50">
          <span aria-hidden="true">{open ? '▾' : '▸'}</span>
          <span className="font-medium">Step {step.step}</span>
          {duration === null ? <span>streaming…</span> : <span>{formatDuration(duration)}</span>}
          {usage === null ? null : <span>{usage}</span>}
          {step.finish === null ? null : <span>finish: {step.finish}</span>}
          {step.interrupted ? <span className="text-amber-800">interrupted</span> : null}
        </button>
      </h3>
      {open ? (
        <div id={body} className="flex flex-col gap-2 px-3 pb-2">
          {step.inputs.map((input) => (
            <div key={input.message.id} className={`ml-auto max-w-[75%] rounded px-3 py-2 text-sm ${input.steer ? 'border border-sky-300 bg-sky-50' : 'bg-slate-100'}`}>
              {input.steer ? <span className="mr-2 text-xs font-medium text-sky-900 uppercase">steer entered here</span> : null}
              {input.message.source.kind === 'user' ? null : <span className="mr-2 text-xs text-slate-600">({input.message.source.kind})</span>}
              <span className="whitespace-pre-wrap">{messageText(input.message)}</span>
            </div>
          ))}
          {step.retries.map((retry) => (
            <RetryRow key={retry.seq} retry={retry} />
          ))}
          {step.parts.map((part, index) =>
            part.kind === 'text' ? (
              <AnswerText key={index} text={part.text} />
            ) : part.kind === 'reasoning' ? (
              <Reasoning key={index} text={part.text} at={disclosureKey.reasoning(turn, step.step, index)} />
            ) : (
              <ToolCard key={`tool-${part.card.callId ?? part.card.index}`} card={part.card} at={disclosureKey.result(turn, step.step, part.card.callId ?? part.card.index)} />
            ),
          )}
          {step.children.map((child) => (
            <ChildCard key={child.childId} child={child} />
          ))}
        </div>
      ) : null}
    </section>
  )
})
