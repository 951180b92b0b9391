/** The Pet Store API's TypeScript client, `@petstore/client` (README.md). */
export { type CallOptions, type CreateOptions, PetStoreClient, type PetStoreClientOptions } from './client.js';
export { PetStoreBannedError, PetStoreError, PetStoreNetworkError, PetStoreQuotaError, PetStoreResponseError } from './errors.js';
export type { RateLimitState, WindowName, WindowState } from './rate-limit-state.js';
export type { BackoffOptions } from './retry-policy.js';
export type { Category, ErrorBody, ErrorCode, NewCategory, Plan, RateLimitStatus } from './types.js';
