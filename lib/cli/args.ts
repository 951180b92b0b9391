/**
 * Argument rules of the admin CLI. Every check happens before any write; a violation is a UsageError, for which
 * the CLI prints the message and exits 2.
 */
import * as v from 'valibot';
import { CUSTOM_LIMIT_MAX, PLAN_NAMES, type Plan, PlanSchema } from '../plans.js';
import { ITEM_CAPACITY_PER_MINUTE, MAX_SHARDS, PER_MINUTE_MAX } from '../rate-limit/shards.js';
import { STAGES, type Stage } from '../stacks.js';

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
      `--per-minute must be at most ${PER_MINUTE_MAX}, the most the rate limiter delivers (${MAX_SHARDS} counter items of ${ITEM_CAPACITY_PER_MINUTE} requests per minute each; README, "Rate limits"), got ${value}`,
    );
  }
  return n;
}

export function parseKeyName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return parseWith(KeyNameSchema, value, '--name must be 1 to 100 characters without control characters');
}
