import { describe, expect, it } from 'vitest'
import { createStyle } from '../output.js'
import { MarkdownLines } from './markdown.js'

const render = (text: string, colour = false) => {
  const md = new MarkdownLines(createStyle(colour))
  return text.split('\n').map((line) => md.line(line))
}

describe('Markdown for the terminal, line by line', () => {
  it('headings, lists, quotes, rules and inline styles lose their markup', () => {
    expect(render('# Title\n## Part two ##\n- one\n  * two\n3) three\n> quoted **bold**\n---\nuse `a**b**` and **bold** and *em*')).toEqual([
      'TITLE', 'Part two', '• one', '  • two', '3. three', '│ quoted bold', '─'.repeat(20), 'use a**b** and bold and em',
    ])
  })

  it('a fenced block keeps its lines verbatim (no inline styles inside) until the same fence closes it', () => {
    expect(render('```ts\nconst a = **b**\n~~~\n```\nafter *x*')).toEqual(['  ┌ ts', '  │ const a = **b**', '  │ ~~~', '  └', 'after x'])
  })

  it('with colour on, styles are SGR sequences only; an unclosed block ends with the answer (reset)', () => {
    const md = new MarkdownLines(createStyle(true))
    expect(md.line('**b**')).toBe('\u001b[1mb\u001b[22m')
    md.line('```')
    md.reset()
    expect(md.line('# h')).toBe('\u001b[1mH\u001b[22m')
  })

  it('text that only looks close to Markdown stays as it is', () => {
    expect(render('2 * 3 * 4 = 24\nsnake_case_name\n#hashtag\n1.5 liters')).toEqual(['2 * 3 * 4 = 24', 'snake_case_name', '#hashtag', '1.5 liters'])
  })
})
