/**
 * A login the host took whose cookie the browser did not keep: the next request is refused (401)
 * as before the login, and without a word the page would show its login form again, as if the
 * right token had been wrong. The usual cause is plain HTTP across a network: the host marks the
 * cookie `Secure` when a request reached it from off the machine (docs/host.md, "Exposure and
 * auth": the token and the cookie would cross the network in clear), and a browser keeps a
 * `Secure` cookie over HTTPS only.
 */

/** What the login form says when the cookie was not kept; `protocol` is the page's (`location.protocol`). */
export function cookieNotKept(protocol: string | undefined): string {
  const why = protocol === 'http:'
    ? 'The host marks it Secure because this page reached it over plain HTTP from another machine, and a browser keeps a Secure cookie over HTTPS only. Open the web UI through an HTTPS proxy in front of the host (bosun serve --trusted-proxy), or on the host\'s own machine at http://127.0.0.1.'
    : 'This browser may block the host\'s cookies: allow cookies for this site, then log in again.'
  return `The host took the token, but this browser did not keep its login cookie, so the page is still logged out. ${why}`
}
