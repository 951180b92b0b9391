/** The document's introduction, with the plans' numbers taken from their definition. */
import { PLAN_LIMITS } from '../plans.js';

const n = (value: number) => value.toLocaleString('en-US');
const plans = Object.entries(PLAN_LIMITS)
  .map(([plan, limits]) => `${plan.charAt(0).toUpperCase()}${plan.slice(1)} ${n(limits.perMinute)}/${n(limits.perDay)}`)
  .join('; ');

export const INFO_DESCRIPTION = `Manages the species and breed categories used to classify pets.

**Authentication.** Every operation needs \`Authorization: Bearer <API key>\`. A key is \`pet_live_…\` for production or \`pet_test_…\` for staging; a key of the other environment gets 401.

**Rate limits.** Each plan has a per-minute and a per-day window (${plans}; Enterprise agreed per customer). Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; over the limit the answer is 429 with \`Retry-After\`. Repeated refused requests ban every key of the customer for a while (429 \`API_KEY_TEMPORARILY_BANNED\`).

**Errors.** Every error is \`{"code","message","status"}\`. A path or method that does not exist under /v1 gets 404 \`NOT_FOUND\` (see \`components.responses.NotFound\`).

**Versioning.** The version is in the path (\`/v1\`). Operations carry \`x-stability\` (\`stable\`, \`beta\`, \`experimental\`); non-stable ones send \`X-API-Stability\`. Deprecated operations carry \`deprecated: true\` and \`x-sunset\`, and send \`Deprecation\`, \`Sunset\` and \`Link\` headers.`;
