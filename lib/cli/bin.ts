/**
 * The admin CLI's process: `npm run petstore -- <command>` runs this file. It sets what belongs to the process
 * (a variable for the SDK it loads, the exit code) and leaves the rest to `main`.
 */
import { main } from './main.js';

// The SDK warns about Node 20 on stderr; the CLI's errors are one line that scripts may read.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

process.exitCode = await main(process.argv.slice(2));
