/**
 * `npm run unicode`: writes nfkc-casefold-table.ts from Unicode's data. Run it on the project's Node.js after changing
 * the data package's version; a test fails while the committed table differs from what the data gives.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tableModuleText } from './derive-nfkc-casefold.js';

const target = fileURLToPath(new URL('./nfkc-casefold-table.ts', import.meta.url));
writeFileSync(target, tableModuleText());
console.log(`wrote ${target}`);
