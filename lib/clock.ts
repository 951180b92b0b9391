/** The one source of "now" for windows, bans and dates, replaceable by tests that need to cross boundaries. */
let current: () => number = Date.now;

/** Milliseconds since the Unix epoch. */
export function nowMs(): number {
  return current();
}

/** @internal The tests' seam: every later reading of the clock calls `clock`. */
export function setClock(clock: () => number): void {
  current = clock;
}

/** @internal */
export function resetClock(): void {
  current = Date.now;
}
