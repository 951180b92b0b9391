// Runs one synthesized bundle the way Lambda's Node.js runtime does: imports its index.mjs once (the cold start),
// then calls `handler` with each event in turn, with a Lambda-like context. Plain JavaScript, so that any Node.js
// binary runs it as it is. The results go to a file: the bundle's own log lines go to stdout.
// Usage: node run-bundle.mjs <bundle index.mjs> <events.json> <results.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bundle, eventsFile, resultsFile] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const loadedBefore = new Set(process.moduleLoadList);
const { handler } = await import(pathToFileURL(bundle).href);
// Node's internal modules the import loaded (a cold start's hidden cost).
const loadedAtImport = process.moduleLoadList.filter((name) => !loadedBefore.has(name));
const timeoutMs = Number(process.env.LAMBDA_TIMEOUT_MS ?? 15_000);

const results = [];
for (const [i, event] of events.entries()) {
  const deadline = Date.now() + timeoutMs;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    // Through the live alias, as API Gateway invokes it: a published version.
    functionVersion: '1',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:000000000000:function:${process.env.AWS_LAMBDA_FUNCTION_NAME}:live`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: `bundle-invocation-${i}`,
    logGroupName: `/aws/lambda/${process.env.AWS_LAMBDA_FUNCTION_NAME}`,
    logStreamName: 'bundle-test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    results.push({ result: (await handler(event, context)) ?? null });
  } catch (error) {
    results.push({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
}
writeFileSync(resultsFile, JSON.stringify({ node: process.version, loadedAtImport, results }));
// Lambda freezes the process here; the SDK's keep-alive sockets would otherwise keep it running.
process.exit(0);
