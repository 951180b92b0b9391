// What the bundles get for `http` and `node:http` (see BUILTIN_ALIASES in infra/constructs/api-function.ts): the
// builtin as CommonJS sees it. An ESM import of node:http builds its namespace from every export, and on Node.js 24
// that includes the lazy WebSocket getters, which load undici, Node's largest internal module, at cold start.
module.exports = process.getBuiltinModule('node:http');
