// Formats the C++ sources with clang-format and the committed .clang-format.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['core', 'wasm', 'tests/native', 'tests/fuzz', 'bench'];

const files = FOLDERS.flatMap((folder) =>
  readdirSync(join(root, folder), { recursive: true })
    .filter((file) => /\.(cpp|hpp)$/.test(file))
    .map((file) => join(folder, file)));
execFileSync('clang-format', ['-i', ...files], { cwd: root, stdio: 'inherit' });
console.log(`format: clang-format -i on ${files.length} files`);
