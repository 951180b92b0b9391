/**
 * The tests' one way to wait: for a real interval to pass (a cache's time to live, a server to go away). A test
 * that waits for work to finish awaits that work or polls for its effect instead; one that needs a later time sets
 * the clock (lib/clock.ts).
 */
export { setTimeout as sleep } from 'node:timers/promises';
