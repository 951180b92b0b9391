/**
 * `npm run openapi`: writes openapi.json at the repository root. The committed file describes the definitions'
 * defaults (deprecation and sunset dates, documentation link), whatever the shell running this has set, so it is
 * the same on every machine; a test fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { committedDocumentText } from './committed.js';

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
writeFileSync(target, committedDocumentText());
console.log(`wrote ${target}`);
