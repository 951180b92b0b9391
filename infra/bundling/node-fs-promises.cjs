// What the bundles get for `node:fs/promises`: see node-http.cjs beside this file.
module.exports = process.getBuiltinModule('node:fs/promises');
