/**
 * Argument rules of the admin CLI. Every check happens before any write; a violation is a UsageError, for which
 * the CLI prints the message and exits 2.
 */
import * as v from 'valibot';
import { CUSTOM_LIMIT_MAX, PLAN_NAMES, type Plan, PlanSchema } from '../plans.js';
import { ITEM_CAPACITY_PER_MINUTE, MAX_SHARDS, PER_MINUTE_MAX } from '../rate-limit/shards.js';
import { STAGES, type Stage } from '../stacks.js';
import { parseDate, parseMonth } from '../usage/days.js';

export class UsageError extends Error {}

export const CustomerIdSchema = v.pipe(
  v.string(),
  v.regex(
    /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/,
    'a customer id is 1 to 64 letters, digits, "_", ".", "@" or "-", starting with a letter or digit',
  ),
);
export const KeyIdSchema = v.pipe(
  v.string(),
  v.regex(/^key_[0-9A-Za-z]{16}$/, 'a key id looks like key_ followed by 16 letters and digits'),
);
// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no control characters"
const KeyNameSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(100), v.regex(/^[^\u0000-\u001f\u007f]*$/));

export function parseWith<T>(schema: v.GenericSchema<unknown, T>, value: unknown, what: string): T {
  const result = v.safeParse(schema, value);
  if (!result.success) throw new UsageError(`${what}: ${result.issues[0]?.message ?? 'invalid'} (got ${JSON.stringify(value)})`);
  return result.output;
}

export function parsePlan(value: string | undefined): Plan {
  if (!value) throw new UsageError(`missing plan: one of ${PLAN_NAMES.join(', ')}`);
  const plan = v.safeParse(PlanSchema, value.toLowerCase());
  if (!plan.success) throw new UsageError(`unknown plan "${value}": one of ${PLAN_NAMES.join(', ')}`);
  return plan.output;
}

const StageSchema = v.picklist(STAGES);

/** --stage; production unless given. */
export function parseStage(value: string | undefined): Stage {
  const stage = v.safeParse(StageSchema, value ?? 'production');
  if (!stage.success) throw new UsageError(`--stage must be production or staging, got "${value}"`);
  return stage.output;
}

export function parseLimit(value: string | undefined, flag: '--per-minute' | '--per-day'): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < 1 || n > CUSTOM_LIMIT_MAX) throw new UsageError(`${flag} must be between 1 and ${CUSTOM_LIMIT_MAX}, got ${value}`);
  if (flag === '--per-minute' && n > PER_MINUTE_MAX) {
    throw new UsageError(
      `--per-minute must be at most ${PER_MINUTE_MAX}, the most the rate limiter delivers (${MAX_SHARDS} counter items of ${ITEM_CAPACITY_PER_MINUTE} requests per minute each; see docs/operating.md, "Plans and Enterprise limits"), got ${value}`,
    );
  }
  return n;
}

export function parseKeyName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return parseWith(KeyNameSchema, value, '--name must be 1 to 100 characters without control characters');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no control characters"
const ReasonSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(500), v.regex(/^[^\u0000-\u001f\u007f]*$/));

export function parseReason(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return parseWith(ReasonSchema, value, '--reason must be 1 to 500 characters without control characters');
}

const DURATION = /^(\d{1,6})([mhd])$/;
const UNIT_SECONDS = { m: 60, h: 3_600, d: 86_400 } as const;
const UNIT_NAMES = { m: 'minutes', h: 'hours', d: 'days' } as const;

/**
 * A length of time such as `90d`, `24h` or `30m`, in seconds, between `min` and `max` seconds. `0` is a length
 * only where `min` is 0.
 */
export function parseDuration(value: string | undefined, flag: string, range: { min: number; max: number }): number | undefined {
  if (value === undefined) return undefined;
  if (value === '0' && range.min === 0) return 0;
  const match = DURATION.exec(value);
  const unit = match?.[2];
  if (!match || (unit !== 'm' && unit !== 'h' && unit !== 'd')) {
    throw new UsageError(`${flag} must be a number of days, hours or minutes such as 90d, 24h or 30m, got "${value}"`);
  }
  const seconds = Number(match[1]) * UNIT_SECONDS[unit];
  const describe = (s: number) => (s === 0 ? '0' : s % 86_400 === 0 ? `${s / 86_400}d` : s % 3_600 === 0 ? `${s / 3_600}h` : `${s / 60}m`);
  if (seconds < range.min || seconds > range.max) {
    throw new UsageError(`${flag} must be between ${describe(range.min)} and ${describe(range.max)}, got ${match[1]} ${UNIT_NAMES[unit]}`);
  }
  return seconds;
}

const INSTANT = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** A day (`2026-09-30`, its UTC start) or an instant with its offset (`2026-09-30T12:00:00Z`), as a Date. */
export function parseInstant(value: string | undefined, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const match = INSTANT.exec(value);
  const day = match?.[1];
  const ms = day === value ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
  if (!match || !day || parseDate(day) === undefined || Number.isNaN(ms)) {
    throw new UsageError(`${flag} must be a date (2026-09-30) or a time with its offset (2026-09-30T12:00:00Z), got "${value}"`);
  }
  return new Date(ms);
}

/** A UTC day `YYYY-MM-DD`, as the Unix second it starts at. */
export function parseDay(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const start = parseDate(value);
  if (start === undefined) throw new UsageError(`${flag} must be a day such as 2026-05-31, got "${value}"`);
  return start;
}

/** A month `YYYY-MM`. */
export function parseMonthFlag(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (!parseMonth(value)) throw new UsageError(`${flag} must be a month such as 2026-05, got "${value}"`);
  return value;
}
