/**
 * Every action of the import screen waits for the one before it to be answered. Each answer is
 * the whole screen, so two answers in flight at once (a cell left with Tab, then a button) could
 * land in either order and put an older screen over a newer one: a saved cell shown with its old
 * value. htmx queues them on #import instead.
 */
export const IN_TURN = { 'hx-sync': '#import:queue all' } as const;
