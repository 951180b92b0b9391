/** `npm run unicode`: writes nfkc-casefold-table.ts from Unicode's data (a test fails while the committed table differs). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tableModuleText } from './derive-nfkc-casefold.js';

const target = fileURLToPath(new URL('./nfkc-casefold-table.ts', import.meta.url));
writeFileSync(target, tableModuleText());
console.log(`wrote ${target}`);
