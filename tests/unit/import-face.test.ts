import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

// The import service shows one face (src/services/import/index.ts): the product's code outside
// the folder imports from it alone, so what the routes may call is in one file and the rest
// of the folder can change without them. (Tests and benches may reach inside.)

const ROOT = join(import.meta.dirname, '..', '..');
const FOLDER = join(ROOT, 'src', 'services', 'import');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

it('nothing outside src/services/import imports a file inside it but its index', () => {
  const reachingIn = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'worker'))]
    .filter((file) => !file.startsWith(FOLDER))
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/from '([^']*services\/import\/[^']+)'/g)].map((m) => `${relative(ROOT, file)} → ${m[1]}`));
  expect(reachingIn).toEqual([]);
});
