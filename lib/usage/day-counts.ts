/**
 * A day's counts while still on a live counter item (`d<dayStart>` admitted, `x<dayStart>` refused for a used-up
 * window), written by the rate limiter's own writes; once final, the usage sweep moves them to the history item.
 */

export const DAY_SECONDS = 86_400;

/** Days a day's totals are kept by default (USAGE_RETENTION_DAYS): the TTL of the counter items and the history. */
export const USAGE_RETENTION_DEFAULT_DAYS = 400;

/** Admitted requests in a UTC day, added by the admission's own write, which also reads it as the day window's count. */
export const dayCountName = (dayStart: number) => `d${dayStart}`;
/** Requests refused for a used-up window in a UTC day (counted with the minute's refusals, lib/rate-limit/ban.ts). */
export const dayRefusalName = (dayStart: number) => `x${dayStart}`;

const DAY_COUNT_NAME = /^([dx])(\d+)$/;

/** The TTL (Unix seconds) of what holds the totals of the day starting at `dayStart`: `retentionDays` after it ends. */
export function retainUntil(dayStart: number, retentionDays: number): number {
  return dayStart + (retentionDays + 1) * DAY_SECONDS;
}

/** One day count on a counter item: `d…` (admitted) or `x…` (refused). */
export interface DayCount {
  name: string;
  dayStart: number;
  kind: 'admitted' | 'refused';
  value: number;
}

/** Every day count an item holds, final or not (the usage history's readers add them to the moved totals). */
export function dayCounts(item: Record<string, unknown> | undefined): DayCount[] {
  if (!item) return [];
  return Object.entries(item).flatMap(([name, value]) => {
    const window = DAY_COUNT_NAME.exec(name);
    if (!window || typeof value !== 'number') return [];
    return [{ name, dayStart: Number(window[2]), kind: window[1] === 'd' ? 'admitted' : 'refused', value } as const];
  });
}

/**
 * Day counts final at `dayStart`: those before the previous day (a clock a moment behind may still count into it).
 * A count written later all the same reappears under its name and is moved again: nothing lost or counted twice.
 */
export function finishedDays(item: Record<string, unknown> | undefined, dayStart: number): DayCount[] {
  return dayCounts(item).filter((count) => count.dayStart < dayStart - DAY_SECONDS);
}
