/**
 * The tests' one way to wait: for a real interval to pass (a cache's time to live, a server to go away). A test
 * that waits for work to finish awaits that work or polls for its effect instead; one that needs a later time sets
 * the clock (lib/clock.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** For a test on the real clock that needs its requests in one UTC minute: waits out the minute's last `marginMs`. */
export async function clearOfMinuteEnd(marginMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await sleep(left + 50);
}
