/** `npm run openapi`: writes openapi.json for the definitions' defaults, whatever the shell has set (a test fails when stale). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { committedDocumentText } from './committed.js';

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
writeFileSync(target, committedDocumentText());
console.log(`wrote ${target}`);
