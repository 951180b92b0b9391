/** From the command line to a command: the list of commands, the usage text, and the checks every command shares. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { quoted } from '../unicode/hidden.js';
import { parseStage, UsageError } from './args.js';
import type { Command, FlagKinds, Invocation } from './command.js';
import { audit } from './commands/audit.js';
import { categoriesDelete } from './commands/categories-delete.js';
import { categoriesList } from './commands/categories-list.js';
import { categoriesRename } from './commands/categories-rename.js';
import { categoriesReserveNames } from './commands/categories-reserve-names.js';
import { customersAssignGatewayKeys } from './commands/customers-assign-gateway-keys.js';
import { customersList } from './commands/customers-list.js';
import { customersResume } from './commands/customers-resume.js';
import { customersSetPlan } from './commands/customers-set-plan.js';
import { customersShow } from './commands/customers-show.js';
import { customersSuspend } from './commands/customers-suspend.js';
import { keysCreate } from './commands/keys-create.js';
import { keysList } from './commands/keys-list.js';
import { keysRevoke } from './commands/keys-revoke.js';
import { keysRoll } from './commands/keys-roll.js';
import { unban } from './commands/unban.js';
import { usage } from './commands/usage.js';
import { verify } from './commands/verify.js';

/** In the order the usage text lists them. A new command is a module in `commands/` and a line here. */
export const COMMANDS: readonly Command[] = [
  customersSetPlan,
  customersList,
  customersShow,
  customersSuspend,
  customersResume,
  customersAssignGatewayKeys,
  keysCreate,
  keysList,
  keysRoll,
  keysRevoke,
  usage,
  unban,
  audit,
  categoriesList,
  categoriesRename,
  categoriesDelete,
  categoriesReserveNames,
  verify,
];

const COMMON_FLAGS = {
  stage: {
    type: 'string',
    synopsis: '[--stage production|staging]',
    help: 'environment (default production; required with --aws for a command that writes)',
  },
  aws: {
    type: 'boolean',
    synopsis: '[--aws]',
    help: 'act on the deployed stack (tables from its outputs) instead of the local DynamoDB',
  },
  json: { type: 'boolean', synopsis: '[--json]', help: 'machine-readable output' },
} as const;

const commonSynopsis = Object.values(COMMON_FLAGS).map((f) => f.synopsis);

export const USAGE = [
  `Usage: npm run petstore -- <command> ${commonSynopsis.join(' ')}`,
  '',
  'Commands:',
  ...COMMANDS.map((c) => `  ${c.name} ${c.synopsis}`),
  '',
  ...Object.entries(COMMON_FLAGS).map(([name, f]) => `${`--${name}`.padEnd(10)}${f.help}`),
].join('\n');

/** Each command's own flags, in the order of COMMANDS; a flag several commands share appears once, of one kind. */
const COMMAND_FLAGS = new Map<string, 'string' | 'boolean'>();
for (const command of COMMANDS) {
  for (const [flag, kind] of Object.entries(command.flags)) {
    if ((COMMAND_FLAGS.get(flag) ?? kind) !== kind) throw new Error(`--${flag} is a string for one command and a switch for another`);
    COMMAND_FLAGS.set(flag, kind);
  }
}

const OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  ...Object.fromEntries(Object.entries(COMMON_FLAGS).map(([flag, { type }]) => [flag, { type }])),
  ...Object.fromEntries([...COMMAND_FLAGS].map(([flag, type]) => [flag, { type }])),
  help: { type: 'boolean', short: 'h' },
};

const GROUPS = new Set(COMMANDS.flatMap((c) => (c.name.includes(' ') ? [c.name.split(' ')[0]] : [])));

/**
 * Read from parseArgs's tokens, not its values, which keep a flag given twice as its last value. Not `strict`, so
 * that refusals are in the CLI's words (parseArgs's advise `-- "-j"`, wrong under `npm run`).
 */
function readOptions(tokens: ReturnType<typeof parseArgs>['tokens']): Map<string, string | boolean> {
  const given = new Map<string, string | boolean>();
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    const kind = Object.hasOwn(OPTIONS, token.name) ? OPTIONS[token.name]?.type : undefined;
    if (kind === undefined) throw new UsageError(`unknown option ${quoted(token.rawName)}`);
    const flag = `--${token.name}`;
    if (given.has(token.name)) throw new UsageError(`${flag} was given twice: give it once`);
    if (kind === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${flag} takes no value, got ${quoted(`${token.rawName}=${token.value}`)}`);
      given.set(token.name, true);
      continue;
    }
    if (token.value === undefined) throw new UsageError(`${flag} needs a value`);
    // `--per-minute -5` is a value, refused as such by the flag's own check; `--name --json` forgot the name.
    if (!token.inlineValue && token.value.startsWith('-') && !/^-\d/.test(token.value)) {
      throw new UsageError(
        `${flag} needs a value: ${quoted(token.value)} is an option (write ${flag}=VALUE for a value that starts with "-")`,
      );
    }
    given.set(token.name, token.value);
  }
  return given;
}

export function dispatch(argv: readonly string[]): { command: Command; invocation: Invocation<FlagKinds>; aws: boolean } {
  const { tokens, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const values = readOptions(tokens);
  const [first, second] = positionals;
  const name = first !== undefined && GROUPS.has(first) ? `${first} ${second ?? ''}`.trim() : (first ?? '');
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(name ? `unknown command ${quoted(name)}` : 'no command given');
  const args = positionals.slice(name.split(' ').length);
  const [min, max] = command.positionals;
  if (args.length < min) throw new UsageError(`"${name}" needs ${min} argument${min > 1 ? 's' : ''}, got ${args.length}`);
  if (args.length > max) {
    throw new UsageError(`"${name}" takes at most ${max} argument${max === 1 ? '' : 's'}: unexpected ${quoted(args[max] ?? '')}`);
  }
  const flags: Record<string, string | boolean> = {};
  for (const [flag, value] of values) {
    if (!COMMAND_FLAGS.has(flag)) continue;
    if (!Object.hasOwn(command.flags, flag)) throw new UsageError(`--${flag} does not apply to "${name}"`);
    flags[flag] = value;
  }
  const stage = values.get('stage');
  const aws = values.get('aws') === true;
  // Locally production is the default; on AWS a change reaches customers, so its stage must be said, not assumed.
  if (aws && command.writes && stage === undefined) {
    throw new UsageError(`with --aws, "${name}" changes a deployed stack: say which with --stage production or --stage staging`);
  }
  return {
    command,
    invocation: { args, flags, stage: parseStage(typeof stage === 'string' ? stage : undefined), json: values.get('json') === true },
    aws,
  };
}
