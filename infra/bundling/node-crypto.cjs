// What the bundles get for `node:crypto`: see node-http.cjs beside this file.
module.exports = process.getBuiltinModule('node:crypto');
