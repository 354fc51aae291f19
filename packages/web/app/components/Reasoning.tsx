/** The model's reasoning, folded away unless asked for. */
export function Reasoning({ text }: { text: string }) {
  return (
    <details className="rounded bg-slate-50 px-2 py-1 text-sm text-slate-700">
      <summary className="cursor-pointer text-xs font-medium">Reasoning ({text.length} characters)</summary>
      <p className="mt-1 whitespace-pre-wrap">{text}</p>
    </details>
  )
}
