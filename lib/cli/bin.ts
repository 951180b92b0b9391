/** The admin CLI's process (`npm run petstore -- <command>`): sets the exit code `main` returns. */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
