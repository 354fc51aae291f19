import * as acp from '@agentclientprotocol/sdk'
import type { ContentBlock } from '@bosun/core'
import { BASE64_PATTERN, IMAGE_MEDIA_TYPES, imageDataProblem, type ImageMediaType } from './image-check.js'
import { hasVisibleContent, withoutBlankText } from './visible-content.js'

/**
 * What `initialize` advertises a prompt may hold besides text and resource links (which every
 * ACP agent takes): images, as `POST …/messages` takes them. No audio (no provider adapter takes
 * it), no embedded resources (`resource` blocks): a client sends those as resource links instead.
 */
export const PROMPT_CAPABILITIES = { image: true, audio: false, embeddedContext: false } as const

const BASE64 = new RegExp(BASE64_PATTERN)

/** `-32602 invalid params` for `prompt[index]`, saying what is wrong with it and what to send. */
function refusedBlock(index: number, problem: string): acp.RequestError {
  return acp.RequestError.invalidParams({ prompt: index }, `prompt[${index}] ${problem}`)
}

/** A resource link as the text the model reads: a Markdown link, which says what it is and where. */
function linkText(block: acp.ResourceLink): string {
  return `[${block.title ?? block.name}](${block.uri})`
}

/** An ACP image block as the session's image block; one a provider would refuse is refused at its index. */
function imageBlock(block: acp.ImageContent, index: number): ContentBlock {
  if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(block.mimeType)) {
    throw refusedBlock(index, `is an image of type ${JSON.stringify(block.mimeType)}: Bosun takes ${IMAGE_MEDIA_TYPES.join(', ')} (what every provider takes). Convert the image to one of them, or leave it out.`)
  }
  if (typeof block.data !== 'string' || !BASE64.test(block.data)) {
    throw refusedBlock(index, `is an image whose data is not base64${block.data === '' ? ' (it is empty)' : ''}: send the image file's bytes, base64-encoded (no data: prefix, no line breaks).`)
  }
  const problem = imageDataProblem(block.mimeType as ImageMediaType, block.data)
  if (problem !== undefined) throw refusedBlock(index, `is an image whose data ${problem}.`)
  return { type: 'image', mediaType: block.mimeType, data: block.data }
}

/**
 * A `session/prompt`'s blocks as the content of the user message it admits: text blocks as text,
 * resource links as a text block of a Markdown link, images as image blocks (checked as the HTTP
 * routes check them). A prompt of text blocks alone is one string, as before images were read. Audio and
 * embedded resources, which {@link PROMPT_CAPABILITIES} does not advertise, are refused at their
 * index rather than dropped: the turn would run as if they had not been sent. So is a prompt with
 * nothing to read (no block, blank text only): it would enter the history as a blank user message,
 * which providers may refuse on every later turn. Blank text beside other blocks is left out, as
 * `POST …/messages` leaves it out.
 */
export function promptContent(prompt: readonly acp.ContentBlock[]): string | ContentBlock[] {
  const blocks: ContentBlock[] = prompt.map((block, index): ContentBlock => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text }
      case 'resource_link':
        return { type: 'text', text: linkText(block) }
      case 'image':
        return imageBlock(block, index)
      case 'audio':
        throw refusedBlock(index, 'is audio: Bosun takes text, images and resource links (its promptCapabilities say audio: false). Send what it says as text.')
      case 'resource':
        throw refusedBlock(index, 'is an embedded resource: Bosun takes text, images and resource links (its promptCapabilities say embeddedContext: false). Send it as a resource link, or its text as a text block.')
      default:
        throw refusedBlock(index, `is a block of type ${JSON.stringify((block as { type: unknown }).type)}: Bosun takes text, images and resource links.`)
    }
  })
  if (!hasVisibleContent(blocks)) {
    throw acp.RequestError.invalidParams({ prompt: 'no text' }, 'the prompt has no text: send at least one text block with some words (or an image, or a resource link); a blank message is not sent to the model')
  }
  if (prompt.every((block) => block.type === 'text')) return blocks.map((block) => (block as { text: string }).text).join('')
  return withoutBlankText(blocks)
}
