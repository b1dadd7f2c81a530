import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@feedback/config';
import { readApiConfig } from './config.js';

const required = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/feedback',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  ERASURE_HASH_KEY: Buffer.alloc(32, 7).toString('base64'),
};
const trustProxy = (value: string) => readApiConfig({ ...required, TRUST_PROXY: value }).config.trustProxy;

describe('TRUST_PROXY', () => {
  it('reads a number as hops, true and false as such, and a list as a list', () => {
    expect(readApiConfig(required).config.trustProxy).toBe('loopback');
    // As a string, Express would read "1" as the address 0.0.0.1 and trust no real proxy.
    expect(trustProxy('1')).toBe(1);
    expect(trustProxy('true')).toBe(true);
    expect(trustProxy('false')).toBe(false);
    expect(trustProxy('loopback, uniquelocal')).toBe('loopback, uniquelocal');
    expect(trustProxy('10.0.0.0/8, 2001:db8::/32')).toBe('10.0.0.0/8, 2001:db8::/32');
  });

  it('refuses at start-up, naming the variable, what Express could not read', () => {
    for (const value of ['yes', 'loopback, 300.1.1.1', '10.0.0.0/33']) {
      expect(() => trustProxy(value)).toThrow(ConfigError);
      expect(() => trustProxy(value)).toThrow(/TRUST_PROXY must be true, false, a number of hops/);
    }
  });
});

describe('SURFACES', () => {
  it('serves every surface unless told otherwise, and refuses at start-up a surface it does not know', () => {
    expect(readApiConfig(required).config.surfaces).toEqual(['api', 'widget', 'dashboard']);
    expect(readApiConfig({ ...required, SURFACES: 'api' }).config.surfaces).toEqual(['api']);
    expect(() => readApiConfig({ ...required, SURFACES: 'api,admin' })).toThrow(/SURFACES must name one or more of api, widget, dashboard, not admin/);
  });
});
