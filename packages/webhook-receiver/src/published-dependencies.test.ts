import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  files?: string[];
  main?: string;
  types?: string;
  exports?: Record<string, { types?: string; default?: string }>;
  dependencies?: Record<string, string>;
}

const packagesFolder = new URL('../../', import.meta.url).pathname;
const manifests: Manifest[] = readdirSync(packagesFolder).map((folder) => JSON.parse(readFileSync(join(packagesFolder, folder, 'package.json'), 'utf8')) as Manifest);
const byName = new Map(manifests.map((manifest) => [manifest.name, manifest]));
const published = manifests.filter((manifest) => !manifest.private);

describe('the published packages', () => {
  it('are the three client libraries and what they need', () => {
    expect(published.map((manifest) => manifest.name).sort()).toEqual(['@feedback/api-client', '@feedback/contracts', '@feedback/webhook-receiver', '@feedback/webhook-signature']);
  });

  it.each(published.map((manifest) => [manifest.name, manifest] as const))('%s needs at run time no package of this workspace that is not published', (_name, manifest) => {
    const unpublished = Object.entries(manifest.dependencies ?? {})
      .filter(([, version]) => version.startsWith('workspace:'))
      // Not a package of this folder (an example, a service), or one marked private.
      .filter(([name]) => !byName.has(name) || byName.get(name)!.private === true);
    expect(unpublished).toEqual([]);
    expect(manifest.license).toBe('MIT');
    expect(manifest.files).toContain('dist');
    expect(manifest.exports?.['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    // For TypeScript resolving as Node 10 did, which reads no `exports`.
    expect({ main: manifest.main, types: manifest.types }).toEqual({ main: './dist/index.js', types: './dist/index.d.ts' });
  });

  it('leave the validators out of a receiver: the webhook receiver reads the events entry of the contracts, not their index', () => {
    // The index compiles every contract of the services with ajv on import, which slows a
    // receiver's start-up (packages/contracts/README.md) for names '@feedback/contracts/events' has.
    const sourceFolder = new URL('./', import.meta.url).pathname;
    const loadsIndex = readdirSync(sourceFolder)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .filter((file) => /^(import|export) (?!type )[^;]*from '@feedback\/contracts';|import\('@feedback\/contracts'\)/m.test(readFileSync(join(sourceFolder, file), 'utf8')));
    expect(loadsIndex).toEqual([]);
    expect(byName.get('@feedback/contracts')!.exports?.['./events']).toEqual({ types: './dist/events.d.ts', default: './dist/events.js' });
  });
});
