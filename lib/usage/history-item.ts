/**
 * The history item: one per customer and month, in the counters table beside the live counters:
 *   { customerId: "usage#<customerId>#YYYY-MM", a01: 812, r01: 3, a02: 1000, …, expiresAt }
 * `aDD` and `rDD` are day DD's admitted and refused requests; under 1 KB a month. Customer ids never hold a "#".
 */
import type { DayCount } from './day-counts.js';
import { DAY_SECONDS, dateOf, parseMonth } from './days.js';

const HISTORY_PREFIX = 'usage#';
const DAY_ATTRIBUTE = /^([ar])(\d{2})$/;

export const historyKey = (customerId: string, month: string) => ({ customerId: `${HISTORY_PREFIX}${customerId}#${month}` });

export const isHistoryKey = (key: string) => key.startsWith(HISTORY_PREFIX);

export function historyName(count: Pick<DayCount, 'dayStart' | 'kind'>): string {
  return `${count.kind === 'admitted' ? 'a' : 'r'}${dateOf(count.dayStart).slice(8)}`;
}

/** The customer a history item belongs to, and the day counts it holds. */
export function historyDays(item: Record<string, unknown>): { customerId: string; days: Omit<DayCount, 'name'>[] } {
  const key = String(item.customerId);
  const split = key.lastIndexOf('#');
  const customerId = key.slice(HISTORY_PREFIX.length, split);
  const month = parseMonth(key.slice(split + 1));
  if (!month) throw new Error(`usage history: malformed key ${key}`);
  const days = Object.entries(item).flatMap(([name, value]) => {
    const match = DAY_ATTRIBUTE.exec(name);
    if (!match || typeof value !== 'number') return [];
    const kind = match[1] === 'a' ? 'admitted' : 'refused';
    return [{ dayStart: month.first + (Number(match[2]) - 1) * DAY_SECONDS, kind, value } as const];
  });
  return { customerId, days };
}
