/** The document's introduction, with the plans' numbers taken from their definition, and who answers for the API. */
import { DEPRECATION_DEFAULTS } from '../deprecation.js';
import { withThousands } from '../format.js';
import { PLAN_LIMITS } from '../plans.js';

const SITE = new URL(DEPRECATION_DEFAULTS.docsUrl).origin;

export const INFO_CONTACT = { name: 'Pet Store API support', url: `${SITE}/support`, email: 'api@petstore.example.com' };
/** The API is offered under the operator's terms of service, not an open licence. */
export const INFO_LICENSE = { name: 'Proprietary: Pet Store API terms of service', url: `${SITE}/terms` };

const n = withThousands;
const plans = Object.entries(PLAN_LIMITS)
  .map(([plan, limits]) => `${plan.charAt(0).toUpperCase()}${plan.slice(1)} ${n(limits.perMinute)}/${n(limits.perDay)}`)
  .join('; ');

export const INFO_DESCRIPTION = `Manages the species and breed categories used to classify pets.

**Authentication.** Every operation needs \`Authorization: Bearer <API key>\`. A key is \`pet_live_…\` for production or \`pet_test_…\` for staging; a key of the other environment gets 401.

**Rate limits.** Each plan has a per-minute and a per-day window (${plans}; Enterprise agreed per customer). Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; over the limit the answer is 429 with \`Retry-After\`. Repeated refused requests ban every key of the customer for a while (429 \`API_KEY_TEMPORARILY_BANNED\`).

**Errors.** Every error is \`{"code","message","status"}\`; new optional fields may be added within /v1, so ignore fields you do not know. A path or method that does not exist under /v1 gets 404 \`NOT_FOUND\` (\`components.responses.NotFound\`): HEAD and OPTIONS too, as no operation has them (there is no CORS preflight). A single trailing slash is ignored (\`/categories/\` is \`/categories\`), as API Gateway REST APIs do. Every 401 carries \`WWW-Authenticate\`; a request with more than one \`Authorization\` header gets 401. Some answers are the gateway's for the whole API, given before it knows the operation, on any path and method: a malformed request's 400, 401, 404, a body over 16 KiB's 413, the throttles' 429 (\`components.responses\`); they carry none of an operation's own headers.

**Caching.** Every answer carries \`Cache-Control: no-store\` and \`X-Content-Type-Options: nosniff\`.

**Versioning.** The version is in the path (\`/v1\`). Operations carry \`x-stability\` (\`stable\`, \`beta\`, \`experimental\`); non-stable ones send \`X-API-Stability\`. Deprecated operations carry \`deprecated: true\` and \`x-sunset\`, and send \`Deprecation\`, \`Sunset\` and \`Link\` headers on every answer but the gateway's for the whole API.`;
