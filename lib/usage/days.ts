/**
 * UTC calendar days and months as the usage history and the admin CLI name them: `YYYY-MM-DD` and `YYYY-MM`, and
 * the Unix second at which each starts.
 */
import { DAY_SECONDS } from './day-counts.js';

export { DAY_SECONDS };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

/** `YYYY-MM-DD` of the UTC day holding `seconds`. */
export function dateOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

export function monthOf(seconds: number): string {
  return dateOf(seconds).slice(0, 7);
}

/** The start of a `YYYY-MM-DD` day in Unix seconds, or undefined when it is not a real calendar day. */
export function parseDate(text: string): number | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const start = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / 1000;
  // Date.UTC rolls 2026-02-30 over into March; a real day reads back the same.
  return dateOf(start) === text ? start : undefined;
}

/** The first and the last day of a `YYYY-MM` month, or undefined when it is not one. */
export function parseMonth(text: string): { first: number; last: number } | undefined {
  const match = MONTH.exec(text);
  if (!match) return undefined;
  const month = Number(match[2]);
  if (month < 1 || month > 12) return undefined;
  const first = Date.UTC(Number(match[1]), month - 1, 1) / 1000;
  const next = Date.UTC(Number(match[1]), month, 1) / 1000;
  return { first, last: next - DAY_SECONDS };
}

/** The start of every day from `first` to `last`, both included (day starts in Unix seconds). */
export function eachDay(first: number, last: number): number[] {
  const days: number[] = [];
  for (let day = first; day <= last; day += DAY_SECONDS) days.push(day);
  return days;
}

export function dayStartOf(seconds: number): number {
  return seconds - (((seconds % DAY_SECONDS) + DAY_SECONDS) % DAY_SECONDS);
}
