/** Requests a stored counter item counted in the UTC day of `nowSeconds` (tests and the load test read items with it). */

import { DAY } from '../../lib/rate-limit/windows.js';
import { dayCountName } from '../../lib/usage/day-counts.js';

export function admittedInDay(item: Record<string, unknown> | undefined, nowSeconds: number): number {
  const counted = item?.[dayCountName(nowSeconds - (nowSeconds % DAY))];
  return typeof counted === 'number' ? counted : 0;
}
