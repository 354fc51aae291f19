import { Fragment, memo } from 'react'

/**
 * How long a piece of an answer is at least before it ends, at the next line break. The answer is
 * drawn as a stack of pieces so that a chunk streamed in changes only the last one: the browser
 * lays out what changed, and one paragraph holding the whole answer was laid out whole for every
 * chunk — a 290,000-character answer held the main thread ~10 s of its 16 s stream, in tasks of up
 * to half a second, where the pieces keep each frame's work the size of the last piece.
 */
export const PIECE_CHARACTERS = 2000

/**
 * Where the answer is cut: after each line break that ends at least {@link PIECE_CHARACTERS}
 * characters. A cut at a line break draws the same lines as the whole text — never one cut
 * mid-line — and a text with no line break stays one piece.
 */
export function answerPieces(text: string): string[] {
  const pieces: string[] = []
  let start = 0
  for (;;) {
    const cut = text.indexOf('\n', start + PIECE_CHARACTERS)
    if (cut === -1) break
    pieces.push(text.slice(start, cut))
    start = cut + 1
  }
  pieces.push(text.slice(start))
  return pieces
}

/** A piece, redrawn only when its own text changes (an earlier piece never does while the answer streams). */
const Piece = memo(function Piece({ text }: { text: string }) {
  return <span className="block">{text}</span>
})

/**
 * The model's answer text. Each cut line break is the break between two block pieces, and is kept
 * in the text as a hidden character (not drawn, not copied, not read out), so the paragraph's text
 * is the answer's, character for character.
 */
export const AnswerText = memo(function AnswerText({ text }: { text: string }) {
  const pieces = answerPieces(text)
  return (
    <p className="text-sm whitespace-pre-wrap" data-testid="assistant-text">
      {pieces.length === 1
        ? text
        : pieces.map((piece, index) => (
            <Fragment key={index}>
              {index === 0 ? null : <span hidden>{'\n'}</span>}
              <Piece text={piece} />
            </Fragment>
          ))}
    </p>
  )
})
