/**
 * The admin CLI's process: `npm run petstore -- <command>` runs this file. It sets the exit code and leaves the rest
 * to `main`.
 */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
