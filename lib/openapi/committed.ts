/** The text of the committed openapi.json: the document for the definitions' defaults, 2-space JSON. */
import { buildOpenApiDocument } from './document.js';

export function committedDocumentText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
