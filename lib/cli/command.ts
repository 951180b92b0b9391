/**
 * What a command of the admin CLI is: its name, its arguments as the usage text shows them, how many positional
 * arguments and which flags of its own it takes, and how it turns them into an action. Each command is one module
 * in `commands/`; the dispatcher lists them.
 */
import type { Stage } from '../stacks.js';
import type { Stores } from './stores.js';
import type { Target } from './targets.js';

/** What a command prints: `--json` prints `json`, otherwise `text`. */
export interface Output {
  json: unknown;
  text: string;
  /** What the command checked is wrong (a check of `verify` failed): the output is printed all the same, and it exits 1. */
  failed?: boolean;
  /** A line for the operator about the output (what it left out), on stderr so that stdout stays one document. */
  note?: string;
}

/**
 * The part of a command that reads or writes DynamoDB; it runs only after every argument has been checked. The
 * target says where it acts (and what that stage admits, for a command that sells limits).
 */
export type Action = (stores: Stores, target: Target) => Promise<Output>;

/** A command's own flags by name: one that takes a value (`--name LABEL`) is a string, a switch is a boolean. */
export type FlagKinds = Readonly<Record<string, 'string' | 'boolean'>>;
type FlagValue<Kind> = Kind extends 'boolean' ? boolean : string;

export interface Invocation<Flags extends FlagKinds> {
  /** The positional arguments after the command's name; their count is already checked. */
  args: readonly string[];
  /** The command's own flags that were given. */
  flags: { readonly [F in keyof Flags]?: FlagValue<Flags[F]> };
  stage: Stage;
  /** --json: the output is read by a program (a command whose text is itself a format, CSV, checks it). */
  json: boolean;
}

export interface Command<Flags extends FlagKinds = FlagKinds> {
  /** One word, or a group and a word: `usage`, `keys create`. */
  name: string;
  /** What follows the name in the usage text. */
  synopsis: string;
  /** The least and the most positional arguments it takes. */
  positionals: readonly [min: number, max: number];
  /**
   * Whether it changes anything. With --aws such a command needs an explicit --stage, so that nobody writes to
   * production by default, and it says which account and stack it wrote to.
   */
  writes: boolean;
  /** Its own flags; --stage, --aws and --json apply to every command. */
  flags: Flags;
  /**
   * Checks the arguments, throwing a UsageError for bad input, and returns the action. Nothing here touches
   * DynamoDB, so bad input exits 2 having written nothing.
   */
  prepare(invocation: Invocation<Flags>): Action;
}

/** Types a command's flags from its own declaration, so that `prepare` sees exactly those. */
export function defineCommand<const Flags extends FlagKinds>(command: Command<Flags>): Command<Flags> {
  return command;
}
