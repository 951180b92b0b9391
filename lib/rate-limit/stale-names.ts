/**
 * The stale-name memory of one process (a Lambda instance): for each counter item it wrote, the attributes of ended
 * minutes, expired days and legacy names that the item held when last seen (counter-item.ts, `staleMinuteNames`). The instance's
 * next admitting write to that item removes them in passing, so clean-up costs no write of its own; a name another
 * instance removed first is simply removed again, which DynamoDB allows.
 */
import { type CounterItem, staleMinuteNames } from './counter-item.js';

/** Items remembered at most: a burst of customers clears the memory rather than growing it without end. */
const ITEMS_MAX = 10_000;
/** Names one write removes at most; more are left for the next write. */
const REMOVALS_MAX = 16;

/** `retentionDays`: how long the usage history keeps a day; a day count older than that is stale too. */
export function staleNameMemory(retentionDays: number) {
  const stale = new Map<string, string[]>();

  return {
    /** Notes what `item` (counter item `key`, as a write returned or refused it) holds of ended minutes. */
    note(key: string, item: CounterItem | undefined, minuteStart: number): void {
      const names = staleMinuteNames(item, minuteStart, retentionDays);
      if (!names.length) {
        stale.delete(key);
        return;
      }
      if (stale.size >= ITEMS_MAX) stale.clear();
      stale.set(key, names.slice(0, REMOVALS_MAX));
    },

    /** The names the next write to `key` removes. */
    of(key: string): readonly string[] {
      return stale.get(key) ?? [];
    },
  };
}

export type StaleNameMemory = ReturnType<typeof staleNameMemory>;
