/**
 * The admin CLI's process: `npm run petstore -- <command>` runs this file. It sets what belongs to the process
 * (two variables for the libraries it loads, the exit code) and leaves the rest to `main`.
 */
import { main } from './main.js';

// The SDK warns about Node 20 on stderr; the CLI's errors are one line that scripts may read.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// lib/config.ts still parses the functions' variables when it loads, and a STAGE that is missing (or not one of
// the two) fails that. The CLI takes its stage from --stage and never reads this one, so any valid value will do.
// Remove once lib/config.ts parses lazily.
process.env.STAGE = 'production';

process.exitCode = await main(process.argv.slice(2));
