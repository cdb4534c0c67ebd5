/** Prefix of the text an update or delete casts to int to fail when rows are missing. */
export const STALE_MARKER = 'pipeflush:stale:'
