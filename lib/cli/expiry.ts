/** The expiry flags of `keys create` and `keys roll`: `--expires-in 90d` or `--expires-at <ISO date>`, not both. */
import { parseDuration, parseInstant, UsageError } from './args.js';

const MAX_LIFETIME_SECONDS = 3_650 * 86_400;

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
