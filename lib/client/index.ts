/**
 * The Pet Store API's TypeScript client, `import { PetStoreClient } from '@petstore/client'`: typed calls, the
 * contract's error codes on typed errors, retries the way the API asks, and the last rate-limit state read.
 */
export { type CallOptions, type CreateOptions, PetStoreClient, type PetStoreClientOptions } from './client.js';
export { PetStoreBannedError, PetStoreError, PetStoreNetworkError, PetStoreQuotaError, PetStoreResponseError } from './errors.js';
export type { RateLimitState, WindowName, WindowState } from './rate-limit-state.js';
export type { BackoffOptions } from './retry-policy.js';
export type { Category, ErrorBody, ErrorCode, NewCategory, Plan, RateLimitStatus } from './types.js';
