// What the bundles get for `node:stream/web` (see BUILTIN_ALIASES in infra/constructs/api-function.ts): Middy's core
// imports ReadableStream only to recognise a streamed response, which our handlers never give. Read on first use,
// Node's web streams implementation (transform streams, compression, adapters) stays unloaded at cold start.
module.exports = {
  get ReadableStream() {
    return process.getBuiltinModule('node:stream/web').ReadableStream;
  },
};
