/** Prefix of the text an update or delete casts to int to fail when rows are missing. */
export const STALE_MARKER = 'pipeflush:stale:'

/**
 * Prefix of the text an insert or update casts to int to fail when a row references an upserted row
 * its lookup does not find (see `lookup-sql.ts`).
 */
export const LOOKUP_MARKER = 'pipeflush:lookup:'
