// What the bundles get for `node:timers`: see node-http.cjs beside this file.
module.exports = process.getBuiltinModule('node:timers');
