// `npm start` builds before it starts: the product then runs as plain `node dist/*.js`
// (no TypeScript loader in production; the process a service manager signals is node itself).
// Each file is written to a temporary name and renamed, so a start or a worker restart that
// reads dist/ while another build runs never sees half a file.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const out = join(root, 'dist');

function writeAtomic(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

const result = await build({
  absWorkingDir: root,
  entryPoints: {
    main: 'src/main.ts',
    worker: 'worker/main.ts',
    'registry-sim': 'worker/registry/sim-main.ts',
    accounts: 'src/cli/accounts.ts',
    keys: 'src/cli/keys.ts',
    users: 'src/cli/users.ts',
    stager: 'src/stager.ts',
    backup: 'src/cli/backup.ts',
    restore: 'src/cli/restore.ts',
    'rotate-key': 'src/cli/rotate-key.ts',
  },
  outdir: out,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  write: false,
  logLevel: 'warning',
});
for (const file of result.outputFiles) writeAtomic(file.path, file.contents);

// db/migrate.ts reads its migrations beside itself; bundled, "itself" is dist/.
function copyTree(from, to) {
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    if (statSync(src).isDirectory()) copyTree(src, join(to, name));
    else writeAtomic(join(to, name), readFileSync(src));
  }
}
copyTree(join(root, 'db', 'migrations'), join(out, 'migrations'));
if (process.env.GATEWAY_BUILD_VERBOSE) console.error(`built ${relative(root, out)}/`);
