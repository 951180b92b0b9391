/**
 * The admin CLI: `npm run petstore -- <command>`. Manages customers, plans and keys of one environment, locally
 * by default or on a deployed stack with --aws. Bad input exits 2 with one clear line and writes nothing;
 * failures to reach DynamoDB exit 1.
 */
import { parseArgs } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Stage } from '../auth/keys.js';
import { authStore, CustomerNotFound, KeyNotFound, limitsOf } from '../auth/store.js';
import { isDynamoUnavailable } from '../dynamo/outage.js';
import { deprecatedCallStore } from '../rate-limit/deprecated-calls.js';
import { dynamoRateLimiter } from '../rate-limit/dynamo-limiter.js';
import { CustomerIdSchema, KeyIdSchema, parseKeyName, parseLimit, parsePlan, parseWith, UsageError } from './args.js';
import { resolveTarget, type Target } from './targets.js';

const USAGE = `Usage: npm run petstore -- <command> [--stage production|staging] [--aws] [--json]

Commands:
  customers set-plan <customerId> <free|pro|business|enterprise> [--per-minute N --per-day N]
  keys create <customerId> [--name LABEL]
  keys list [<customerId>]
  keys revoke <keyId>
  usage <customerId>
  unban <customerId>

--stage   environment (default production)
--aws     act on the deployed stack (tables from its outputs) instead of the local DynamoDB
--json    machine-readable output`;

const COMMAND_FLAGS: Record<string, { positionals: [number, number]; flags: string[] }> = {
  'customers set-plan': { positionals: [2, 2], flags: ['per-minute', 'per-day'] },
  'keys create': { positionals: [1, 1], flags: ['name'] },
  'keys list': { positionals: [0, 1], flags: [] },
  'keys revoke': { positionals: [1, 1], flags: [] },
  usage: { positionals: [1, 1], flags: [] },
  unban: { positionals: [1, 1], flags: [] },
};

interface Output {
  json: unknown;
  text: string;
}

function parse(argv: string[]) {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0] : String(error));
  }
  const { values, positionals } = parsed;
  const [first, second] = positionals;
  const command = first === 'customers' || first === 'keys' ? `${first} ${second ?? ''}`.trim() : (first ?? '');
  const spec = COMMAND_FLAGS[command];
  if (!spec) throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  const args = positionals.slice(command.split(' ').length);
  const [min, max] = spec.positionals;
  if (args.length < min) throw new UsageError(`"${command}" needs ${min} argument${min > 1 ? 's' : ''}, got ${args.length}`);
  if (args.length > max)
    throw new UsageError(`"${command}" takes at most ${max} argument${max === 1 ? '' : 's'}: unexpected "${args[max]}"`);
  for (const flag of ['per-minute', 'per-day', 'name'] as const) {
    if (values[flag] !== undefined && !spec.flags.includes(flag)) throw new UsageError(`--${flag} does not apply to "${command}"`);
  }
  const stage = values.stage ?? 'production';
  if (stage !== 'production' && stage !== 'staging') throw new UsageError(`--stage must be production or staging, got "${stage}"`);
  return { command, args, values, stage: stage as Stage };
}

const OPTIONS = {
  stage: { type: 'string' },
  aws: { type: 'boolean' },
  json: { type: 'boolean' },
  name: { type: 'string' },
  'per-minute': { type: 'string' },
  'per-day': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function run(argv: string[]): Promise<Output> {
  const { command, args, values, stage } = parse(argv);
  // Everything is validated before the first byte goes to DynamoDB.
  const customerArg = () => parseWith(CustomerIdSchema, args[0], 'customerId');
  let action: (target: Target) => Promise<Output>;
  switch (command) {
    case 'customers set-plan': {
      const customerId = customerArg();
      const plan = parsePlan(args[1]);
      const perMinute = parseLimit(values['per-minute'], '--per-minute');
      const perDay = parseLimit(values['per-day'], '--per-day');
      if (plan === 'enterprise' && (perMinute === undefined || perDay === undefined)) {
        throw new UsageError('the enterprise plan needs both --per-minute and --per-day');
      }
      if (plan !== 'enterprise' && (perMinute !== undefined || perDay !== undefined)) {
        throw new UsageError(`--per-minute and --per-day are for the enterprise plan only; the ${plan} plan has fixed limits`);
      }
      if (perMinute !== undefined && perDay !== undefined && perMinute > perDay) {
        throw new UsageError(`--per-minute (${perMinute}) cannot exceed --per-day (${perDay})`);
      }
      action = async (target) => {
        const customer = await stores(target).auth.setPlan(customerId, plan, perMinute && perDay ? { perMinute, perDay } : undefined);
        const limits = limitsOf(customer);
        return {
          json: { customerId, plan, ...limits, stage },
          text: `customer ${customerId} is on the ${plan} plan: ${limits.perMinute} requests per minute, ${limits.perDay} per day (${stage})`,
        };
      };
      break;
    }
    case 'keys create': {
      const customerId = customerArg();
      const name = parseKeyName(values.name);
      action = async (target) => {
        const { auth } = stores(target);
        const customer = await auth.getCustomer(customerId);
        if (!customer) throw new UsageError(`no customer "${customerId}" in ${stage}: create it with customers set-plan first`);
        const { apiKey, record } = await auth.createKey(customerId, stage, name);
        return {
          json: { apiKey, keyId: record.keyId, customerId, plan: customer.plan, stage },
          text: `${apiKey}\n\nkey ${record.keyId} for customer ${customerId} (${customer.plan}, ${stage}).\nThis is the only time the key is shown: only its SHA-256 is stored.`,
        };
      };
      break;
    }
    case 'keys list': {
      const customerId = args[0] === undefined ? undefined : customerArg();
      action = async (target) => {
        const keys = await stores(target).auth.listKeys(customerId);
        const rows = keys.map((k) => ({
          keyId: k.keyId,
          customerId: k.customerId,
          status: k.status,
          created: k.createdAt,
          ...(k.name ? { name: k.name } : {}),
          ...(k.revokedAt ? { revoked: k.revokedAt } : {}),
        }));
        const text = rows.length
          ? rows.map((r) => `${r.keyId}  ${r.customerId.padEnd(20)}  ${r.status.padEnd(7)}  ${r.created}  ${r.name ?? ''}`).join('\n')
          : 'no keys';
        return { json: rows, text };
      };
      break;
    }
    case 'keys revoke': {
      const keyId = parseWith(KeyIdSchema, args[0], 'keyId');
      action = async (target) => {
        const record = await stores(target).auth.revokeKey(keyId);
        return {
          json: { keyId, customerId: record.customerId, status: record.status, revokedAt: record.revokedAt },
          text: `key ${keyId} of customer ${record.customerId} is revoked (cached authorizations end within the cache TTL)`,
        };
      };
      break;
    }
    case 'usage': {
      const customerId = customerArg();
      action = async (target) => {
        const { auth, counters, deprecatedCallStore: calls } = stores(target);
        const customer = await auth.getCustomer(customerId);
        if (!customer) throw new UsageError(`no customer "${customerId}" in ${stage}`);
        const limits = limitsOf(customer);
        const [usage, deprecatedCalls] = await Promise.all([counters.peek(customerId, limits, Date.now()), calls.read(customerId)]);
        const { minute, day } = usage.windows;
        const iso = (s: number) => new Date(s * 1000).toISOString();
        const deprecated = Object.entries(deprecatedCalls);
        return {
          json: {
            customerId,
            plan: customer.plan,
            minute: { limit: minute.limit, used: minute.limit - minute.remaining, remaining: minute.remaining, reset: minute.reset },
            day: { limit: day.limit, used: day.limit - day.remaining, remaining: day.remaining, reset: day.reset },
            ban: { active: usage.banUntil !== null, until: usage.banUntil },
            deprecatedCalls,
          },
          text: [
            `customer ${customerId} (${customer.plan}, ${stage})`,
            `  minute: ${minute.limit - minute.remaining}/${minute.limit} used, resets ${iso(minute.reset)}`,
            `  day:    ${day.limit - day.remaining}/${day.limit} used, resets ${iso(day.reset)}`,
            `  ban:    ${usage.banUntil ? `until ${iso(usage.banUntil)}` : 'none'}`,
            `  deprecated operations: ${deprecated.length ? deprecated.map(([op, c]) => `${op} ${c.count} calls, last ${c.last}`).join('; ') : 'none called'}`,
          ].join('\n'),
        };
      };
      break;
    }
    case 'unban': {
      const customerId = customerArg();
      action = async (target) => {
        const { auth, counters } = stores(target);
        if (!(await auth.getCustomer(customerId))) throw new UsageError(`no customer "${customerId}" in ${stage}`);
        const wasBanned = await counters.unban(customerId, Date.now());
        return { json: { customerId, wasBanned }, text: wasBanned ? `ban of ${customerId} lifted` : `${customerId} was not banned` };
      };
      break;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
  const target = await resolveTarget(stage, values.aws ?? false);
  try {
    return await action(target);
  } catch (error) {
    if (error instanceof CustomerNotFound || error instanceof KeyNotFound) throw new UsageError(`${error.message} in ${stage}`);
    if (isDynamoUnavailable(error)) {
      throw new Error(`cannot reach ${target.where}${values.aws ? '' : ': is `npm start` running?'}`);
    }
    throw error;
  } finally {
    target.client.destroy();
  }
}

function stores(target: Target) {
  const db = DynamoDBDocumentClient.from(target.client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    auth: authStore(db, { customers: target.tables.CUSTOMERS_TABLE, keys: target.tables.KEYS_TABLE }),
    // Unban and usage never start a ban, so the ban length does not matter here.
    counters: dynamoRateLimiter(db, target.tables.COUNTERS_TABLE, { banSeconds: 0 }),
    deprecatedCallStore: deprecatedCallStore(db, target.tables.COUNTERS_TABLE),
  };
}

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    console.log(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const output = await run(argv);
    console.log(json ? JSON.stringify(output.json) : output.text);
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError;
    const message = error instanceof Error ? error.message : String(error);
    if (json) console.error(JSON.stringify({ error: usage ? 'USAGE' : 'FAILED', message }));
    else console.error(`petstore: ${message}${usage ? '\n(npm run petstore -- --help for usage)' : ''}`);
    return usage ? 2 : 1;
  }
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.exitCode = await main(process.argv.slice(2));
