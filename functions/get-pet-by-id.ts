/**
 * getPetById: GET /pets/{petId} — deprecated. The specification names it but does not define its shape, so it
 * answers 501 NOT_IMPLEMENTED; the request path checks petId, answers 410 GONE after the sunset date, and adds the
 * Deprecation, Sunset and Link headers to every answer, errors included.
 */
import { HttpError } from '../lib/http/error-codes.js';
import { operation } from '../lib/http/operation.js';
import { getPetById } from '../lib/routes/pets.js';

export const handler = operation(getPetById, async () => {
  throw new HttpError(
    'NOT_IMPLEMENTED',
    'GET /pets/{petId} is deprecated and not implemented: the interface specification does not define a pet',
  );
});
