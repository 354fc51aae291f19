import { useDisclosure } from '../state/disclosure.js'

/**
 * The model's reasoning, folded away unless asked for; once opened it stays open when its row
 * is scrolled away and back (`at` names it in its session, disclosure.ts).
 */
export function Reasoning({ text, at }: { text: string; at: string }) {
  const [open, setOpen] = useDisclosure(at, false)
  return (
    <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)} className="rounded bg-slate-50 px-2 py-1 text-sm text-slate-700">
      <summary className="cursor-pointer text-xs font-medium">Reasoning ({text.length} characters)</summary>
      <p className="mt-1 whitespace-pre-wrap">{text}</p>
    </details>
  )
}
