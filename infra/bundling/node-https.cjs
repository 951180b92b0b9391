// What the bundles get for `https` and `node:https`: see node-http.cjs beside this file.
module.exports = process.getBuiltinModule('node:https');
