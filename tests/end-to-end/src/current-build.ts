import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
let current = false;

/**
 * For tests that start a service or example from its build (`dist/`): fails them at once when a
 * source file changed since, rather than let them pass on old code. `pnpm test` builds first;
 * `pnpm jest <file>` or an editor's test runner does not. (About a second, once per test file.)
 */
export function requireCurrentBuild(): void {
  if (current) return;
  const plan = execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-b', '--dry', root], { encoding: 'utf8' });
  const stale = plan.split('\n').filter((line) => line.includes('would build'));
  if (stale.length > 0) throw new Error(`the build is older than the source; run \`pnpm build\` first:\n${stale.join('\n')}`);
  current = true;
}
