/** The text of the committed openapi.json: the document for the default configuration, 2-space JSON. */
import { EnvSchema, parseEnv } from '../config.js';
import { buildOpenApiDocument, documentOptions } from './document.js';

/** Defaults only: every optional variable of EnvSchema unset. */
export function defaultDocumentOptions() {
  const unset = Object.fromEntries(Object.keys(EnvSchema.entries).map((name) => [name, undefined]));
  return documentOptions(parseEnv({ ...unset, STAGE: 'production' }));
}

export function committedDocumentText(): string {
  return `${JSON.stringify(buildOpenApiDocument(defaultDocumentOptions()), null, 2)}\n`;
}
