/** getPetById: GET /pets/{petId}, deprecated: 501, as the specification does not define a pet (410 after the sunset). */
import { HttpError } from '../lib/http/error-codes.js';
import { operation } from '../lib/http/operation.js';
import { getPetById } from '../lib/routes/pets.js';

export const handler = operation(getPetById, async () => {
  throw new HttpError(
    'NOT_IMPLEMENTED',
    'GET /pets/{petId} is deprecated and not implemented: the interface specification does not define a pet',
  );
});
