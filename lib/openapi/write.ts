/**
 * `npm run openapi`: writes openapi.json at the repository root. The committed file describes the default
 * configuration (deprecation and sunset dates, documentation link), whatever the shell running this has set, so
 * it is the same on every machine; a test fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// lib/config.ts parses process.env when loaded and needs a STAGE; the document is the same for both stages.
process.env.STAGE ??= 'production';
const { committedDocumentText } = await import('./committed.js');

const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
writeFileSync(target, committedDocumentText());
console.log(`wrote ${target}`);
