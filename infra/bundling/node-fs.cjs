// What the bundles get for `node:fs`: see node-http.cjs beside this file.
module.exports = process.getBuiltinModule('node:fs');
