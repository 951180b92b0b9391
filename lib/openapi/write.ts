/**
 * `npm run openapi`: writes openapi.json for the definitions' defaults, whatever the shell has set, so it is the same
 * on every machine; a test fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { committedDocumentText } from './committed.js';

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
writeFileSync(target, committedDocumentText());
console.log(`wrote ${target}`);
