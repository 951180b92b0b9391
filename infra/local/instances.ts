/**
 * How the local gateway runs its functions: in its own process (the default), or as several warm instances of each
 * (LAMBDA_INSTANCES), each a worker thread with its own module graph, so each rate limiter remembers refusals and bans
 * for itself. Instances start on a function's first request (or with `preload`), take requests in turn, and one that
 * dies is started again.
 */
import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiEvent } from '../../lib/http/response.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { invoke, preloadFunctions } from './functions.js';
import type { Invocation, WorkerMessage } from './instance-worker.js';

export interface Invoked {
  result: APIGatewayProxyResult | undefined;
  /** Which of the function's instances ran it (0 when they all share the gateway's process). */
  instance: number;
}

export interface LocalFunctions {
  invoke(route: Route, event: ApiEvent): Promise<Invoked>;
  preload(): Promise<void>;
  close(): Promise<void>;
}

export const inProcess: LocalFunctions = {
  invoke: async (route, event) => ({ result: await invoke(route, event), instance: 0 }),
  preload: () => preloadFunctions(),
  close: async () => undefined,
};

interface Instance {
  worker: Worker;
  ready: Promise<void>;
  pending: Map<number, { resolve: (result: APIGatewayProxyResult | undefined) => void; reject: (error: Error) => void }>;
  dead: boolean;
}

function startInstance(route: Route): Instance {
  const worker = new Worker(new URL('./instance-worker.ts', import.meta.url), {
    workerData: { operationId: route.operationId },
    execArgv: ['--import', 'tsx'],
  });
  worker.unref();
  const instance: Instance = { worker, ready: Promise.resolve(), pending: new Map(), dead: false };
  const ended = (error: Error) => {
    instance.dead = true;
    for (const { reject } of instance.pending.values()) reject(error);
    instance.pending.clear();
  };
  instance.ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: WorkerMessage) => {
      if ('ready' in message) return message.ready ? resolve() : reject(new Error(`${route.handler}: ${message.message}`));
      const waiting = instance.pending.get(message.id);
      instance.pending.delete(message.id);
      if ('error' in message) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.result);
    });
    worker.on('error', (error) => {
      ended(error);
      reject(error);
    });
    worker.on('exit', (code) => {
      const error = new Error(`an instance of ${route.handler} exited with code ${code}`);
      ended(error);
      reject(error);
    });
  });
  instance.ready.catch(() => undefined);
  return instance;
}

export function workerInstances(count: number): LocalFunctions {
  const pools = new Map<string, { instances: Instance[]; next: number }>();
  let invocations = 0;

  function poolOf(route: Route) {
    let pool = pools.get(route.operationId);
    if (!pool) {
      pool = { instances: Array.from({ length: count }, () => startInstance(route)), next: 0 };
      pools.set(route.operationId, pool);
    }
    return pool;
  }

  return {
    async invoke(route, event) {
      const pool = poolOf(route);
      const index = pool.next;
      pool.next = (pool.next + 1) % count;
      if (pool.instances[index]?.dead) pool.instances[index] = startInstance(route);
      const instance = pool.instances[index] ?? startInstance(route);
      await instance.ready;
      const id = invocations++;
      const result = new Promise<APIGatewayProxyResult | undefined>((resolve, reject) => instance.pending.set(id, { resolve, reject }));
      instance.worker.postMessage({ id, event } satisfies Invocation);
      return { result: await result, instance: index };
    },
    async preload() {
      await Promise.all(ROUTES.flatMap((route) => poolOf(route).instances.map((instance) => instance.ready)));
    },
    async close() {
      const workers = [...pools.values()].flatMap((pool) => pool.instances.map((instance) => instance.worker));
      pools.clear();
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
