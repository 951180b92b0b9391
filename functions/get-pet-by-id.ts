/**
 * getPetById: GET /pets/{petId} — deprecated. The specification names it but does not define its shape, so it
 * answers 501 NOT_IMPLEMENTED until its sunset date, and 410 GONE after it. The boundary adds the Deprecation,
 * Sunset and Link headers to every answer, errors included.
 */
import { nowMs } from '../lib/clock.js';
import { HttpError } from '../lib/http/errors.js';
import { operation } from '../lib/http/operation.js';
import { deprecationDates } from '../lib/http/route-headers.js';

const { sunsetAt } = deprecationDates();

export const handler = operation('getPetById', async (event) => {
  if (nowMs() >= sunsetAt.getTime()) {
    throw new HttpError('GONE', `GET /pets/{petId} was retired on ${sunsetAt.toUTCString()}; see the Link header`);
  }
  const petId = event.pathParameters?.petId ?? '';
  if (!/^[1-9]\d{0,17}$/.test(petId)) {
    throw new HttpError('VALIDATION_FAILED', `"petId" must be a positive integer, got "${petId.slice(0, 40)}"`);
  }
  throw new HttpError(
    'NOT_IMPLEMENTED',
    'GET /pets/{petId} is deprecated and not implemented: the interface specification does not define a pet',
  );
});
