/** What a command of the admin CLI is: one module in `commands/`, listed by the dispatcher. */
import type { Stage } from '../stacks.js';
import type { Stores } from './stores.js';
import type { Target } from './targets.js';

/** What a command prints: `--json` prints `json`, otherwise `text`. */
export interface Output {
  json: unknown;
  text: string;
  /** A check of `verify` failed: the output is printed all the same, and it exits 1. */
  failed?: boolean;
  /** A line for the operator about the output (what it left out), on stderr so that stdout stays one document. */
  note?: string;
}

/** The part of a command that reads or writes DynamoDB; it runs only after every argument is checked. */
export type Action = (stores: Stores, target: Target) => Promise<Output>;

export type FlagKinds = Readonly<Record<string, 'string' | 'boolean'>>;
type FlagValue<Kind> = Kind extends 'boolean' ? boolean : string;

export interface Invocation<Flags extends FlagKinds> {
  args: readonly string[];
  flags: { readonly [F in keyof Flags]?: FlagValue<Flags[F]> };
  stage: Stage;
  /** --json: the output is read by a program (`usage --csv` refuses both). */
  json: boolean;
}

export interface Command<Flags extends FlagKinds = FlagKinds> {
  /** One word, or a group and a word: `usage`, `keys create`. */
  name: string;
  synopsis: string;
  positionals: readonly [min: number, max: number];
  /** With --aws a command that writes needs an explicit --stage, and says which account and stack it wrote to. */
  writes: boolean;
  /** Its own flags; --stage, --aws and --json apply to every command. */
  flags: Flags;
  /** Checks the arguments (a UsageError: exit 2, nothing written) and returns the action; touches no DynamoDB. */
  prepare(invocation: Invocation<Flags>): Action;
}

type Definition<Flags extends FlagKinds> = Omit<Command<Flags>, 'synopsis' | 'positionals' | 'flags'> &
  Partial<Pick<Command<Flags>, 'synopsis' | 'positionals' | 'flags'>>;

/** No synopsis, no positionals and no flags of its own unless it says so. */
export function defineCommand<const Flags extends FlagKinds = Record<never, never>>(command: Definition<Flags>): Command<Flags> {
  return { synopsis: '', positionals: [0, 0], flags: {} as Flags, ...command };
}
