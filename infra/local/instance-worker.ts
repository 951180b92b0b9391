/**
 * One warm instance of one function (instances.ts): a worker thread, so its modules are its own, as a Lambda
 * instance's are. It imports its function, says whether that worked, then runs each invocation posted to it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { APIGatewayProxyResult } from 'aws-lambda';
import * as v from 'valibot';
import type { ApiEvent } from '../../lib/http/response.js';
import { ROUTES } from '../../lib/routes.js';
import { invoke, preloadFunctions } from './functions.js';

export interface Invocation {
  id: number;
  event: ApiEvent;
}

export type WorkerMessage =
  | { ready: true }
  | { ready: false; message: string }
  | { id: number; result: APIGatewayProxyResult | undefined }
  | { id: number; error: string };

const route = ROUTES.find((r) => r.operationId === v.parse(v.object({ operationId: v.string() }), workerData).operationId);
const port = parentPort;

function post(message: WorkerMessage): void {
  port?.postMessage(message);
}

if (!route) post({ ready: false, message: 'no such operation' });
else {
  try {
    await preloadFunctions([route]);
    post({ ready: true });
  } catch (error) {
    post({ ready: false, message: error instanceof Error ? error.message : String(error) });
  }
  port?.on('message', ({ id, event }: Invocation) => {
    invoke(route, event).then(
      (result) => post({ id, result }),
      (error: unknown) => post({ id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
