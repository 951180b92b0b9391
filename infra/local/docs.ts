/**
 * The local gateway's public pages: the OpenAPI document at /v1/openapi.json (the server it was fetched from first, so
 * "Try it out" calls this port) and Swagger UI at /docs from the installed swagger-ui-dist. HEAD answers as GET does.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { config, localConfig } from '../../lib/config.js';
import { ANSWER_HEADERS, GATEWAY_RATE_LIMIT_HEADERS } from '../../lib/http/answer-headers.js';
import { buildOpenApiDocument } from '../../lib/openapi/document.js';
import { API_STAGE_NAME } from '../../lib/stacks.js';
import type { GatewayOptions } from './gateway.js';

export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/v1/openapi.json';

type ExtraRoute = NonNullable<GatewayOptions['extraRoutes']>[string];

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const ASSETS: Record<string, { file: string; type: string }> = {
  [`${DOCS_PATH}/swagger-ui.css`]: { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  [`${DOCS_PATH}/swagger-ui-bundle.js`]: { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  [`${DOCS_PATH}/favicon-32x32.png`]: { file: 'favicon-32x32.png', type: 'image/png' },
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Pet Store API reference</title>
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script>
      window.ui = SwaggerUIBundle({
        url: '${OPENAPI_PATH}',
        dom_id: '#swagger-ui',
        deepLinking: true,
        docExpansion: 'list',
        presets: [SwaggerUIBundle.presets.apis],
        layout: 'BaseLayout',
      });
    </script>
  </body>
</html>
`;

function reply(res: ServerResponse, body: string | Buffer, type: string, cache: string, extra: Record<string, string> = {}): void {
  // Like every answer of the gateway: a request id, nosniff, and the rate-limit headers of a request that spends no
  // quota. These pages hold no customer's data, so they may be cached (revalidated, or an hour for the assets).
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': randomUUID(),
    ...GATEWAY_RATE_LIMIT_HEADERS,
    ...ANSWER_HEADERS,
    'Cache-Control': cache,
    ...extra,
  });
  res.end(body);
}

function send(body: string | Buffer, type: string, cache = 'no-cache'): ExtraRoute {
  return (_req: IncomingMessage, res: ServerResponse) => reply(res, body, type, cache);
}

/** host[:port] as a client may name this server; anything else in Host is not echoed into the document. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function servedDocument(): ExtraRoute {
  const env = config();
  const fallback = `localhost:${localConfig().PORT}`;
  const texts = new Map<string, string>();
  return (req, res) => {
    const host = HOST.test(req.headers.host ?? '') ? (req.headers.host ?? fallback) : fallback;
    let text = texts.get(host);
    if (!text) {
      text = `${JSON.stringify(buildOpenApiDocument(env, { url: `http://${host}/${API_STAGE_NAME}`, stage: env.STAGE }), null, 2)}\n`;
      if (texts.size < 32) texts.set(host, text);
    }
    reply(res, text, 'application/json', 'no-cache', { Vary: 'Host' });
  };
}

/** The extra routes for startGateway(); read once, so a missing package fails startup rather than a page load. */
export function docsRoutes(): Record<string, ExtraRoute> {
  const page = send(PAGE, 'text/html; charset=utf-8');
  const routes: Record<string, ExtraRoute> = {
    // With or without the trailing slash, as the API's own paths (its assets are named from the root).
    [DOCS_PATH]: page,
    [`${DOCS_PATH}/`]: page,
    [OPENAPI_PATH]: servedDocument(),
  };
  for (const [path, { file, type }] of Object.entries(ASSETS))
    routes[path] = send(readFileSync(join(swaggerUiDir, file)), type, 'public, max-age=3600');
  return routes;
}
