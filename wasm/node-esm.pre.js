// Lets the ES-module glue run in Node, where it would otherwise call require() and read
// __dirname (both undefined in ES modules) and fetch the .wasm by file path: it reads the
// .wasm that Module.locateFile names (engine.mjs picks the build), or the glue's own. In
// browsers and workers this does nothing. _scriptDir is the glue's import.meta.url.
if (typeof process === 'object' && process.versions && process.versions.node) {
  var require = process.getBuiltinModule('module').createRequire(_scriptDir);
  var __dirname = require('path').dirname(require('url').fileURLToPath(_scriptDir));
  if (!Module['wasmBinary']) {
    // locateFile may answer a file: URL (engine.mjs does) or a path
    var wasmFile = Module['locateFile'] ? Module['locateFile']('attention_core.wasm', __dirname + '/')
                                        : require('path').join(__dirname, 'attention_core.wasm');
    Module['wasmBinary'] = require('fs').readFileSync(
        wasmFile.startsWith('file:') ? new URL(wasmFile) : wasmFile);
  }
}
