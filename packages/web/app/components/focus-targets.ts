/**
 * Ids of the places the focus goes when the control that had it leaves the page (a dismissed notice,
 * Notices.tsx) and no session's Message box is open: New session, else the conversation's region.
 */
export const NEW_SESSION_ID = 'new-session'
export const MAIN_ID = 'session-main'
