import { statSync } from 'node:fs'
import { readFile, realpath, stat } from 'node:fs/promises'
import { extname, resolve, sep } from 'node:path'
import type { Hono } from 'hono'
import { errorResponse, HostError } from './errors.js'

/**
 * Serves a built single-page app (the web UI) at `/`: its files by path, and `index.html` for `/`
 * and for any other unknown GET path outside `/v1` so the app's client-side routing works.
 * Nothing under `/v1` is ever answered from here.
 */

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
}

/**
 * Same-origin only: the app's own scripts (no inline script, no eval), its own styles (inline
 * style attributes allowed: React and Tailwind set them), fetch/SSE to the host itself, and no
 * framing by other sites.
 */
export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const IMMUTABLE = 'public, max-age=31536000, immutable'

function isApiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/')
}

/** Checks `webRoot` up front (a directory holding index.html) and answers its resolved path. */
export function checkWebRoot(webRoot: string): string {
  const root = resolve(webRoot)
  let ok = false
  try {
    ok = statSync(root).isDirectory() && statSync(resolve(root, 'index.html')).isFile()
  } catch {
    ok = false
  }
  if (!ok) throw new TypeError(`createHost(): "webRoot" must be a directory holding index.html (the built web UI), got ${JSON.stringify(webRoot)}.`)
  return root
}

/**
 * The path's segments, or undefined when the path tries to leave the root or reach a hidden file
 * (`..`, an encoded separator or backslash, NUL, a dot-file).
 */
function safeSegments(path: string): string[] | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    return undefined
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined
  const segments = decoded.split('/').filter((s) => s !== '')
  return segments.some((s) => s === '..' || s.startsWith('.')) ? undefined : segments
}

/** The regular file `segments` name inside the root, also after resolving symlinks; else undefined. */
async function fileFor(root: string, realRoot: string, segments: string[]): Promise<string | undefined> {
  const file = resolve(root, ...segments)
  if (file === root || !file.startsWith(root + sep)) return undefined
  try {
    const real = await realpath(file)
    if (!real.startsWith(realRoot + sep)) return undefined
    return (await stat(real)).isFile() ? real : undefined
  } catch {
    return undefined
  }
}

async function serveFile(file: string, cacheControl: string, method: string): Promise<Response> {
  const body = await readFile(file)
  return new Response(method === 'HEAD' ? null : body, {
    status: 200,
    headers: {
      'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': String(body.byteLength),
      'cache-control': cacheControl,
      'content-security-policy': WEB_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  })
}

/** Registers the static routes; call after every `/v1` route. */
export function webRootRoutes(app: Hono, webRoot: string): void {
  const root = checkWebRoot(webRoot)
  let realRoot: Promise<string> | undefined
  const index = resolve(root, 'index.html')
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const path = new URL(c.req.url).pathname
    if (isApiPath(path)) return next()
    const segments = safeSegments(path)
    if (!segments) return errorResponse(new HostError('not-found', 'No such file in the web UI.'))
    realRoot ??= realpath(root)
    const file = segments.length === 0 ? undefined : await fileFor(root, await realRoot, segments)
    // Hashed build output never changes under its name; everything else is revalidated.
    if (file) return serveFile(file, path.startsWith('/assets/') && file !== index ? IMMUTABLE : 'no-cache', c.req.method)
    // A missing asset is a 404 (a stale page asking for an old hash), not the app's HTML.
    if (path.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(path)) {
      return errorResponse(new HostError('not-found', `No file ${path} in the web UI.`))
    }
    return serveFile(index, 'no-cache', c.req.method)
  })
}
