/** Argument rules of the admin CLI, checked before any write: a violation is a UsageError (exit 2). */
import * as v from 'valibot';
import { PLAN_NAMES, type Plan, PlanSchema } from '../plans.js';
import { STAGES, type Stage } from '../stacks.js';
import { hiddenCharacter, quoted } from '../unicode/hidden.js';
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
const shown = (value: unknown) => (typeof value === 'string' ? quoted(value) : JSON.stringify(value));

export function parseWith<T>(schema: v.GenericSchema<unknown, T>, value: unknown, what: string): T {
  const result = v.safeParse(schema, value);
  if (!result.success) throw new UsageError(`${what}: ${result.issues[0]?.message ?? 'invalid'} (got ${shown(value)})`);
  return result.output;
}

export function parsePlan(value: string | undefined): Plan {
  if (!value) throw new UsageError(`missing plan: one of ${PLAN_NAMES.join(', ')}`);
  const plan = v.safeParse(PlanSchema, value.toLowerCase());
  if (!plan.success) throw new UsageError(`unknown plan ${quoted(value)}: one of ${PLAN_NAMES.join(', ')}`);
  return plan.output;
}

export function parseStage(value: string | undefined): Stage {
  const stage = v.safeParse(v.picklist(STAGES), value ?? 'production');
  if (!stage.success) throw new UsageError(`--stage must be production or staging, got ${quoted(value ?? '')}`);
  return stage.output;
}

// A limit's ceiling depends on the stage: `requireCapacity` (customers-set-plan.ts) checks it, still before any write.
export function parseLimit(value: string | undefined, flag: '--per-minute' | '--per-day'): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || /^0+$/.test(value)) throw new UsageError(`${flag} must be a positive whole number, got ${quoted(value)}`);
  return Number(value);
}

const HIDDEN_RULES = {
  control: 'must not contain control characters',
  invisible: 'must not contain invisible characters such as zero-width spaces or bidirectional controls',
  'marks-only': 'must show something: it holds only combining marks, which display as blank',
} as const;

/** Free text shown later by `keys list` and `audit`: 1 to `max` code points, none hidden (named, never echoed). */
function parseText(value: string | undefined, flag: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (value === '') throw new UsageError(`${flag} must not be empty`);
  const length = [...value].length;
  if (length > max) throw new UsageError(`${flag} must be at most ${max} characters, got ${length}`);
  const hidden = hiddenCharacter(value);
  if (hidden) throw new UsageError(`${flag} ${HIDDEN_RULES[hidden.kind]} (found ${hidden.name})`);
  return value;
}

export const parseKeyName = (value: string | undefined) => parseText(value, '--name', 100);
export const parseReason = (value: string | undefined) => parseText(value, '--reason', 500);

const DURATION = /^(\d+)([mhd])$/;
const UNIT_SECONDS = { m: 60, h: 3_600, d: 86_400 } as const;
const UNIT_NAMES = { m: 'minutes', h: 'hours', d: 'days' } as const;

/** `90d`, `24h` or `30m`, in seconds, between `min` and `max`; `0` only where `min` is 0. */
export function parseDuration(value: string | undefined, flag: string, range: { min: number; max: number }): number | undefined {
  if (value === undefined) return undefined;
  if (value === '0' && range.min === 0) return 0;
  if (value.startsWith('-'))
    throw new UsageError(`${flag} must ${range.min === 0 ? 'not be negative' : 'be positive'}, got ${quoted(value)}`);
  const match = DURATION.exec(value);
  const unit = match?.[2];
  if (!match || (unit !== 'm' && unit !== 'h' && unit !== 'd')) {
    throw new UsageError(`${flag} must be a number of days, hours or minutes such as 90d, 24h or 30m, got ${quoted(value)}`);
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
    throw new UsageError(`${flag} must be a date (2026-09-30) or a time with its offset (2026-09-30T12:00:00Z), got ${quoted(value)}`);
  }
  return new Date(ms);
}

const MAX_LIFETIME_SECONDS = 3_650 * 86_400;

/** The expiry flags of `keys create` and `keys roll`: `--expires-in 90d` or `--expires-at <ISO date>`, not both. */
export function parseExpiry(expiresIn: string | undefined, expiresAt: string | undefined, nowMs: number): Date | undefined {
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
  const seconds = parseDuration(expiresIn, '--expires-in', { min: 60, max: MAX_LIFETIME_SECONDS });
  if (seconds !== undefined) return new Date(nowMs + seconds * 1000);
  const at = parseInstant(expiresAt, '--expires-at');
  if (at === undefined) return undefined;
  if (at.getTime() <= nowMs) throw new UsageError(`--expires-at must be in the future, got ${at.toISOString()}`);
  if (at.getTime() > nowMs + MAX_LIFETIME_SECONDS * 1000) throw new UsageError('--expires-at must be within ten years');
  return at;
}

export function parseDay(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const start = parseDate(value);
  if (start === undefined) throw new UsageError(`${flag} must be a day such as 2026-05-31, got ${quoted(value)}`);
  return start;
}

export function parseMonthFlag(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (!parseMonth(value)) throw new UsageError(`${flag} must be a month such as 2026-05, got ${quoted(value)}`);
  return value;
}
