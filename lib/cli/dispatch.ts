/**
 * From the command line to a command: the list of commands, the usage text built from them, and the checks every
 * command shares (known command, number of arguments, flags that apply to it, --stage).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { parseStage, UsageError } from './args.js';
import type { Command, FlagKinds, Invocation } from './command.js';
import { audit } from './commands/audit.js';
import { categoriesDelete } from './commands/categories-delete.js';
import { categoriesList } from './commands/categories-list.js';
import { categoriesRename } from './commands/categories-rename.js';
import { categoriesReserveNames } from './commands/categories-reserve-names.js';
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

/** Flags of every command, with their line in the usage text. */
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
  stage: { type: COMMON_FLAGS.stage.type },
  aws: { type: COMMON_FLAGS.aws.type },
  json: { type: COMMON_FLAGS.json.type },
  ...Object.fromEntries([...COMMAND_FLAGS].map(([flag, type]) => [flag, { type }])),
  help: { type: 'boolean', short: 'h' },
};

/** Groups of commands (`customers`, `keys`) take their second word as part of the command's name. */
const GROUPS = new Set(COMMANDS.flatMap((c) => (c.name.includes(' ') ? [c.name.split(' ')[0]] : [])));

export interface Dispatch {
  command: Command;
  invocation: Invocation<FlagKinds>;
  aws: boolean;
}

/** Finds the command and checks what all commands share; the command checks its own arguments. */
export function dispatch(argv: readonly string[]): Dispatch {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0] : String(error));
  }
  const { values, positionals } = parsed;
  const [first, second] = positionals;
  const name = first !== undefined && GROUPS.has(first) ? `${first} ${second ?? ''}`.trim() : (first ?? '');
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(name ? `unknown command "${name}"` : 'no command given');
  const args = positionals.slice(name.split(' ').length);
  const [min, max] = command.positionals;
  if (args.length < min) throw new UsageError(`"${name}" needs ${min} argument${min > 1 ? 's' : ''}, got ${args.length}`);
  if (args.length > max) throw new UsageError(`"${name}" takes at most ${max} argument${max === 1 ? '' : 's'}: unexpected "${args[max]}"`);
  const flags: Record<string, string | boolean> = {};
  for (const flag of COMMAND_FLAGS.keys()) {
    const value = values[flag];
    if (value === undefined) continue;
    if (!Object.hasOwn(command.flags, flag)) throw new UsageError(`--${flag} does not apply to "${name}"`);
    if (typeof value === 'string' || typeof value === 'boolean') flags[flag] = value;
  }
  const stage = parseStage(typeof values.stage === 'string' ? values.stage : undefined);
  const aws = values.aws === true;
  // Locally production is the default; on AWS a change reaches customers, so its stage must be said, not assumed.
  if (aws && command.writes && values.stage === undefined) {
    throw new UsageError(`with --aws, "${name}" changes a deployed stack: say which with --stage production or --stage staging`);
  }
  return { command, invocation: { args, flags, stage, json: values.json === true }, aws };
}
