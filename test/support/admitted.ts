/** Requests a stored counter item counted over a run's UTC days (tests and the load test read items with it). */

import { DAY } from '../../lib/rate-limit/windows.js';
import { dayCountName } from '../../lib/usage/day-counts.js';

function admittedInDay(item: Record<string, unknown> | undefined, nowSeconds: number): number {
  const counted = item?.[dayCountName(nowSeconds - (nowSeconds % DAY))];
  return typeof counted === 'number' ? counted : 0;
}

/** From the UTC day of `sinceMs` to today's: a run that crosses midnight counts in two days. */
export function admittedSince(item: Record<string, unknown> | undefined, sinceMs: number): number {
  const now = Math.floor(Date.now() / 1000);
  let total = 0;
  for (let day = Math.floor(sinceMs / 1000); day - (day % DAY) <= now; day += DAY) total += admittedInDay(item, day);
  return total;
}
