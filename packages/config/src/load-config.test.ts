import { describe, expect, it } from '@jest/globals';
import { ConfigError, base64Key, environmentOf, integer, loadConfig, string, url } from './index.js';

const spec = {
  databaseUrl: url({ env: 'DATABASE_URL', description: 'PostgreSQL URL', protocols: ['postgresql', 'postgres'] }),
  port: integer({ env: 'PORT', description: 'HTTP port', default: 3000, min: 1, max: 65535 }),
  signingKey: string({ env: 'SIGNING_KEY', description: 'signing key', secret: true }),
};

describe('loadConfig', () => {
  it('parses every variable and applies defaults', () => {
    const { config } = loadConfig(spec, { DATABASE_URL: 'postgresql://u@h/db', SIGNING_KEY: 'k' });
    expect(config).toEqual({ databaseUrl: 'postgresql://u@h/db', port: 3000, signingKey: 'k' });
  });

  it("names a value that breaks its variable's own rule among the other problems, without showing it", () => {
    const checked = {
      ...spec,
      signingKey: string({
        env: 'SIGNING_KEY',
        description: 'signing key',
        secret: true,
        check: (value) => {
          if (!value.startsWith('key-')) throw new Error('must start with "key-"');
        },
      }),
    };
    expect(loadConfig(checked, { DATABASE_URL: 'postgresql://u@h/db', SIGNING_KEY: 'key-1' }).config.signingKey).toBe('key-1');
    const read = () => loadConfig(checked, { SIGNING_KEY: 'hunter2' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/DATABASE_URL is required[\s\S]*SIGNING_KEY must start with "key-"/);
    expect(read).not.toThrow(/hunter2/);
  });

  it('names every missing or malformed variable in one error', () => {
    let caught: unknown;
    try {
      loadConfig(spec, { DATABASE_URL: 'mysql://h/db', PORT: 'eighty' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const { problems } = caught as ConfigError;
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/DATABASE_URL must use postgresql or postgres/);
    expect(problems.join('\n')).toMatch(/PORT must be a whole number/);
    expect(problems.join('\n')).toMatch(/SIGNING_KEY is required/);
  });

  it('takes a base64 key of exactly its size, and names the variable without repeating a wrong one', () => {
    const keySpec = { key: base64Key({ env: 'KEY', description: 'a key', bytes: 32, hint: 'make one: openssl rand -base64 32' }) };
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, n) => n * 8 + 3));
    const good = bytes.toString('base64');
    for (const form of [good, bytes.toString('base64url'), good.replace(/=+$/, '')]) expect(loadConfig(keySpec, { KEY: form }).config.key).toBe(form);
    for (const wrong of [Buffer.alloc(16, 7).toString('base64'), `${good.slice(0, 10)}!${good.slice(11)}`, 'not base64 at all']) {
      let message = '';
      try {
        loadConfig(keySpec, { KEY: wrong });
      } catch (error) {
        message = (error as ConfigError).problems.join('\n');
      }
      expect(message).toMatch(/KEY must be 32 bytes in base64 \(make one: openssl rand -base64 32\)/);
      expect(message).not.toContain(wrong);
    }
  });

  it('rejects a number outside its range', () => {
    expect(() => loadConfig(spec, { DATABASE_URL: 'postgres://h/db', PORT: '70000', SIGNING_KEY: 'k' })).toThrow(
      /PORT must be at most 65535/,
    );
  });

  it('describes the configuration without secrets or URL passwords', () => {
    const loaded = loadConfig(spec, { DATABASE_URL: 'postgresql://user:hunter2@h/db', SIGNING_KEY: 'top-secret' });
    const described = JSON.stringify(loaded.describe());
    expect(described).not.toContain('hunter2');
    expect(described).not.toContain('top-secret');
    expect(loaded.describe()['SIGNING_KEY']).toBe('[redacted]');
  });

  it('keeps credentials given as URL parameters out of the description too', () => {
    const loaded = loadConfig(spec, { DATABASE_URL: 'postgresql://user@h/db?password=hunter2&sslpassword=opensesame&sslmode=require', SIGNING_KEY: 'k' });
    const described = loaded.describe()['DATABASE_URL']!;
    expect(described).not.toContain('hunter2');
    expect(described).not.toContain('opensesame');
    expect(described).toContain('sslmode=require');
  });

  it('names the effective configuration, and the table, by environment name', () => {
    expect(Object.keys(loadConfig(spec, { DATABASE_URL: 'postgresql://u@h/db', SIGNING_KEY: 'k' }).describe())).toEqual(['DATABASE_URL', 'PORT', 'SIGNING_KEY']);
    expect(Object.keys(environmentOf(spec))).toEqual(['DATABASE_URL', 'PORT', 'SIGNING_KEY']);
  });

  it('drops a URL\'s final slash when told to, so paths can be appended', () => {
    const base = { base: url({ env: 'BASE_URL', description: 'base', protocols: ['https'], trimTrailingSlash: true }) };
    expect(loadConfig(base, { BASE_URL: 'https://example.com/app/' }).config.base).toBe('https://example.com/app');
  });
});
