// What the bundles get for `node:process`: see node-http.cjs beside this file.
module.exports = process.getBuiltinModule('node:process');
