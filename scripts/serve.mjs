// Serves dist/ on 127.0.0.1: `node scripts/serve.mjs` listens on port 8080, or the next
// free one, and prints the URL. Browser tests import serveDist() to serve dist/ under a
// sub-path on a free port.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const FIRST_PORT = 8080;
const PORTS_TO_TRY = 20;
const HOST = '127.0.0.1';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.bin': 'application/octet-stream',
  '.ts': 'text/plain; charset=utf-8',
};

// The file under dist/ for a URL path below `prefix`, or null.
function resolveFile(urlPath, prefix) {
  if (!urlPath.startsWith(prefix)) return null;
  let relative = decodeURIComponent(urlPath.slice(prefix.length));
  if (relative === '' || relative.endsWith('/')) relative += 'index.html';
  const file = normalize(join(dist, relative));
  if (!file.startsWith(dist + sep)) return null;
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

// Starts serving; resolves to the listening http.Server. `prefix` is the URL path the
// site lives under, such as '/' or '/tools/attention/'.
export function serveDist({ port = FIRST_PORT, prefix = '/' } = {}) {
  const server = createServer((request, response) => {
    const file = resolveFile(new URL(request.url, 'http://localhost').pathname, prefix);
    if (!file) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    response.writeHead(200, {
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve(server));
  });
}

async function main() {
  for (let port = FIRST_PORT; port < FIRST_PORT + PORTS_TO_TRY; ++port) {
    try {
      await serveDist({ port });
      console.log(`Attention Playground: http://${HOST}:${port}/  (Ctrl+C stops)`);
      return;
    } catch (error) {
      if (error.code !== 'EADDRINUSE') throw error;
    }
  }
  console.error(`serve: ports ${FIRST_PORT}–${FIRST_PORT + PORTS_TO_TRY - 1} are all in use`);
  process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
