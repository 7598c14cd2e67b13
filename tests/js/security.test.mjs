// Static checks of what the page and the package ship:
//   - no source in web/ turns text into markup or code: innerHTML, outerHTML,
//     insertAdjacentHTML, document.write, eval, new Function, and their less common cousins
//     appear nowhere, not even in comments; nor does eval or new Function in the built dist/;
//   - each page, as the build makes it from web/ and as dist/ holds it, carries a strict
//     Content-Security-Policy meta tag (script-src 'self' 'wasm-unsafe-eval', no
//     'unsafe-inline' or 'unsafe-eval') and no inline script or handler;
//   - package.json pins exact versions and the lockfile resolves only from the npm registry.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { renderPages } from '../../scripts/build-web.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGES = ['index.html', 'lab.html', 'train.html'];
const NPM_REGISTRY = 'https://registry.npmjs.org/';

// [name, pattern]: ways to turn a string into markup (HTML_SINKS) or into code (CODE_SINKS).
const HTML_SINKS = [
  ['innerHTML', /\binnerHTML\b/],
  ['outerHTML', /\bouterHTML\b/],
  ['insertAdjacentHTML', /\binsertAdjacentHTML\b/],
  ['document.write', /\bdocument\s*\.\s*write(ln)?\b/],
  ["d3's selection.html()", /\.html\s*\(/],
  ['createContextualFragment', /\bcreateContextualFragment\b/],
  ['srcdoc', /\bsrcdoc\b/],
  ['a javascript: URL', /['"`=(]\s*javascript\s*:/i],
];
const CODE_SINKS = [
  ['eval', /(^|[^\w$.])eval\s*\(/],
  ['new Function', /\bnew\s+Function\b/],
  ['Function(...) as a constructor', /(^|[^\w$.])Function\s*\(/],
  ['setTimeout/setInterval with a string', /\bset(Timeout|Interval)\s*\(\s*['"`]/],
];

// Every file under `folder` (relative to the root) with one of the extensions.
function filesUnder(folder, extensions) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (extensions.some((extension) => entry.name.endsWith(extension))) found.push(path);
    }
  };
  if (existsSync(join(root, folder))) walk(join(root, folder));
  return found;
}

// "file:line: sink: the line" for each line of `text` that uses one of `sinks`.
function sinksIn(name, text, sinks) {
  const hits = [];
  text.split('\n').forEach((line, index) => {
    for (const [sink, pattern] of sinks) {
      if (pattern.test(line)) hits.push(`${name}:${index + 1}: ${sink}: ${line.trim().slice(0, 120)}`);
    }
  });
  return hits;
}

function findSinks(files, sinks) {
  return files.flatMap((file) => sinksIn(relative(root, file), readFileSync(file, 'utf8'), sinks));
}

// The policy of a page's <meta http-equiv="Content-Security-Policy"> as {directive: [sources]}.
function contentSecurityPolicy(html, page) {
  const metas = html.match(/<meta\b[^>]*http-equiv\s*=\s*["']?Content-Security-Policy["']?[^>]*>/gi) ?? [];
  assert.equal(metas.length, 1, `${page} has ${metas.length} Content-Security-Policy meta tags, not 1`);
  const content = metas[0].match(/\bcontent\s*=\s*"([^"]*)"/i)?.[1];
  assert.ok(content, `${page}: the Content-Security-Policy meta tag has no content`);
  const policy = {};
  for (const directive of content.split(';').map((d) => d.trim()).filter(Boolean)) {
    const [name, ...sources] = directive.split(/\s+/);
    policy[name.toLowerCase()] = sources;
  }
  return policy;
}

// The one policy every page carries (web/shared/page/layout.html): its own origin for everything,
// wasm compiled, images drawn into data: and blob: URLs (the charts' PNG), nothing else.
const POLICY = {
  'default-src': ["'self'"], 'script-src': ["'self'", "'wasm-unsafe-eval'"], 'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'], 'connect-src': ["'self'"], 'worker-src': ["'self'"], 'object-src': ["'none'"],
  'base-uri': ["'none'"], 'form-action': ["'none'"],
};

function checkPage(html, page) {
  const policy = contentSecurityPolicy(html, page);
  assert.deepEqual(policy, POLICY, `${page}: the Content-Security-Policy`);
  const scripts = policy['script-src'];
  assert.ok(scripts, `${page}: the policy has no script-src`);
  assert.ok(scripts.includes("'self'"), `${page}: script-src lacks 'self'`);
  assert.ok(scripts.includes("'wasm-unsafe-eval'"), `${page}: script-src lacks 'wasm-unsafe-eval'`);
  for (const directive of ['script-src', 'default-src', 'script-src-elem', 'script-src-attr']) {
    for (const unsafe of ["'unsafe-inline'", "'unsafe-eval'", '*', 'data:', 'http:', 'https:']) {
      assert.ok(!(policy[directive] ?? []).includes(unsafe), `${page}: ${directive} allows ${unsafe}`);
    }
  }
  assert.ok(policy['default-src'], `${page}: the policy has no default-src`);
  assert.deepEqual(policy['object-src'], ["'none'"], `${page}: object-src is not 'none'`);
  assert.ok(html.indexOf('Content-Security-Policy') < html.search(/<script\b/i) || !/<script\b/i.test(html),
    `${page}: a script comes before the policy`);

  // Every <script> loads a file and has no body; no element carries an inline handler.
  for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    assert.match(attributes, /\bsrc\s*=/i, `${page}: a <script> without src`);
    assert.equal(body.trim(), '', `${page}: a <script> with an inline body`);
  }
  const handlers = html.match(/<[a-z][^>]*\son[a-z]+\s*=/gi) ?? [];
  assert.deepEqual(handlers, [], `${page}: inline event handlers`);
}

test('the scan finds every sink it looks for, and not their safe look-alikes', () => {
  const unsafe = ['el.innerHTML = text', 'el.outerHTML=text', "el.insertAdjacentHTML('beforeend', text)",
    'document.write(text)', 'selection.html(text)', 'range.createContextualFragment(text)', 'frame.srcdoc = text',
    "a.href = 'javascript:alert(1)'", 'eval(text)', "new Function('a', text)", "Function('return this')()",
    "setTimeout('run()', 10)"];
  unsafe.forEach((line, i) => {
    const sinks = [...HTML_SINKS, ...CODE_SINKS];
    assert.ok(sinksIn('sample', line, sinks).some((hit) => hit.includes(`: ${sinks[i][0]}: `)), `${line} is ${sinks[i][0]}`);
  });
  const safe = ['el.textContent = text', 'retrieval(x)', 'function f() {}', 'setTimeout(() => run(), 10)',
    "el.setAttribute('title', text)", '// JavaScript: the language', 'const html = 1'];
  for (const line of safe) assert.deepEqual(sinksIn('sample', line, [...HTML_SINKS, ...CODE_SINKS]), []);
});

describe('web/ sources', () => {
  const sources = filesUnder('web', ['.js', '.mjs', '.html', '.css', '.svg']);

  test('the page sources are found: scripts of every page and of the shared code', () => {
    assert.ok(sources.length >= PAGES.length + 1, `only ${sources.length} files under web/`);
    for (const folder of ['playground', 'lab', 'train', 'shared']) {
      assert.ok(sources.some((file) => file.split(sep).join('/').includes(`web/${folder}/`) && file.endsWith('.js')), `no script under web/${folder}/`);
    }
  });

  test('nothing turns text into markup or code: no innerHTML, document.write, eval, new Function…', () => {
    assert.deepEqual(findSinks(sources, [...HTML_SINKS, ...CODE_SINKS]), []);
  });

  // Each page as the build makes it from web/: its own HTML in the layout every page shares.
  const rendered = new Map(renderPages(join(root, 'web')).map(({ file, html }) => [file, html]));
  for (const page of PAGES) {
    test(`${page}: a strict Content-Security-Policy, no inline script, no inline handler`, () => {
      checkPage(rendered.get(page), `${page} made from web/`);
    });
  }
});

describe('the built site in dist/', { skip: !existsSync(join(root, 'dist', 'index.html')) && 'dist/ is not built' }, () => {
  test('bundles and the engine glue hold no eval or new Function (the policy would refuse them)', () => {
    // The Embind glue is built with -sDYNAMIC_EXECUTION=0; the bundles come from web/ and npm
    // (d3's selection.html() is bundled, with its innerHTML, but web/ never calls it: above).
    assert.deepEqual(findSinks(filesUnder('dist', ['.js', '.mjs', '.html']), CODE_SINKS), []);
  });

  for (const page of PAGES) {
    test(`dist/${page} keeps the policy and loads scripts only from files`, { skip: !existsSync(join(root, 'dist', page)) }, () => {
      checkPage(readFileSync(join(root, 'dist', page), 'utf8'), `dist/${page}`);
    });
  }
});

describe('dependencies', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

  test('package.json pins every dependency to an exact version', () => {
    const exact = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const [name, version] of Object.entries(manifest[field] ?? {})) {
        assert.match(version, exact, `${field}.${name} is ${JSON.stringify(version)}, not an exact version`);
      }
    }
  });

  test('the lockfile matches package.json and resolves only from the npm registry, with integrity', () => {
    const packages = Object.entries(lock.packages ?? {});
    assert.ok(lock.lockfileVersion >= 2 && packages.length > 1, 'package-lock.json has no packages section');
    assert.deepEqual(lock.packages[''].devDependencies ?? {}, manifest.devDependencies ?? {});
    assert.deepEqual(lock.packages[''].dependencies ?? {}, manifest.dependencies ?? {});
    for (const [path, entry] of packages) {
      if (path === '') continue;
      assert.ok(!entry.link, `${path} is a link to ${entry.resolved}`);
      if (entry.resolved !== undefined) {
        assert.ok(entry.resolved.startsWith(NPM_REGISTRY), `${path} resolves from ${entry.resolved}`);
      }
      assert.match(entry.version ?? '', /^\d+\.\d+\.\d+/, `${path} has version ${JSON.stringify(entry.version)}`);
      assert.match(entry.integrity ?? '', /^sha512-[A-Za-z0-9+/]+=*$/, `${path} has no sha512 integrity`);
    }
  });

  test('no .npmrc points npm at another registry', () => {
    const npmrc = join(root, '.npmrc');
    if (!existsSync(npmrc)) return;
    for (const line of readFileSync(npmrc, 'utf8').split('\n')) {
      const registry = line.match(/^\s*(@[\w-]+:)?registry\s*=\s*(\S+)/)?.[2];
      if (registry) assert.equal(registry.replace(/\/?$/, '/'), NPM_REGISTRY, `.npmrc: ${line}`);
    }
  });
});
