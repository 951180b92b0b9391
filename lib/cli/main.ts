/** The admin CLI: runs one command, printed through the given io (tests run it in-process); bad input exits 2, failures 1. */
import { CustomerNotFound, KeyNotFound } from '../auth/admin-change.js';
import { isDynamoUnavailable } from '../dynamo/backoff.js';
import { UsageError } from './args.js';
import type { Output } from './command.js';
import { dispatch, USAGE } from './dispatch.js';
import { stores } from './stores.js';
import { resolveTarget } from './targets.js';

/** Each call is one line or a block of lines; the io ends it with a newline. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const consoleIo: Io = {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
};

async function run(argv: readonly string[]): Promise<Output & { wrote?: string }> {
  const { command, invocation, aws } = dispatch(argv);
  const action = command.prepare(invocation);
  const { stage } = invocation;
  const target = await resolveTarget(stage, aws);
  try {
    const output = await action(stores(target), target);
    const { deployed } = target;
    if (!command.writes || !deployed) return output;
    return { ...output, wrote: `wrote to stack ${deployed.stack} in account ${deployed.account} (${deployed.region}) as ${target.actor}` };
  } catch (error) {
    if (error instanceof CustomerNotFound || error instanceof KeyNotFound) throw new UsageError(`${error.message} in ${stage}`);
    if (isDynamoUnavailable(error)) {
      throw new Error(`cannot reach ${target.where}${target.unreachableHint ? `: ${target.unreachableHint}` : ''}`);
    }
    throw error;
  } finally {
    target.client.destroy();
  }
}

export async function main(argv: readonly string[], io: Io = consoleIo): Promise<number> {
  const json = argv.includes('--json');
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    io.out(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const output = await run(argv);
    io.out(json ? JSON.stringify(output.json) : output.text);
    // On stderr, so that --json output stays one JSON document on stdout.
    if (output.note) io.err(`petstore: ${output.note}`);
    if (output.wrote) io.err(`petstore: ${output.wrote}`);
    return output.failed ? 1 : 0;
  } catch (error) {
    const usage = error instanceof UsageError;
    const message = error instanceof Error ? error.message : String(error);
    if (json) io.err(JSON.stringify({ error: usage ? 'USAGE' : 'FAILED', message }));
    else io.err(`petstore: ${message}${usage ? '\n(npm run petstore -- --help for usage)' : ''}`);
    return usage ? 2 : 1;
  }
}
