import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@feedback/config';
import { PRODUCTION_RETRY_DELAYS_MS, PRODUCTION_THROTTLE_DELAYS_MS } from './queues/webhook-topology.js';
import { testCertificates } from '@feedback/test-support';
import { readWorkerConfig } from './config.js';

const required = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/feedback',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  SIGNING_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ERASURE_HASH_KEY: randomBytes(32).toString('base64'),
};

describe('readWorkerConfig', () => {
  it('keeps outbound safety whole unless told otherwise: no local hosts allowed, no extra CA trusted', () => {
    const { config } = readWorkerConfig(required);
    expect(config.allowedPrivateHosts).toEqual([]);
    expect(config.extraCaFile).toBe('');
  });

  it('refuses an extra CA file that cannot be read or holds no certificate, naming the variable', () => {
    const directory = mkdtempSync(join(tmpdir(), 'worker-config-'));
    try {
      const notPem = join(directory, 'not.pem');
      writeFileSync(notPem, 'hello');
      for (const path of [join(directory, 'missing.pem'), notPem]) {
        expect(() => readWorkerConfig({ ...required, WEBHOOK_EXTRA_CA_FILE: path })).toThrow(ConfigError);
        expect(() => readWorkerConfig({ ...required, WEBHOOK_EXTRA_CA_FILE: path })).toThrow(/WEBHOOK_EXTRA_CA_FILE/);
      }
      const caFile = testCertificates().caFile;
      expect(readWorkerConfig({ ...required, WEBHOOK_EXTRA_CA_FILE: caFile }).config.extraCaFile).toBe(caFile);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('reads previous signing-secret keys as a list, none by default, and names a bad one by position without showing it', () => {
    expect(readWorkerConfig(required).config.previousSigningSecretKeys).toEqual([]);
    const keys = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    expect(readWorkerConfig({ ...required, SIGNING_SECRET_PREVIOUS_KEYS: keys.join(', ') }).config.previousSigningSecretKeys).toEqual(keys);
    const short = randomBytes(16).toString('base64');
    const read = () => readWorkerConfig({ ...required, SIGNING_SECRET_PREVIOUS_KEYS: `${keys[0]},${short}` });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/SIGNING_SECRET_PREVIOUS_KEYS.*key 2 must be 32 bytes/);
    expect(read).not.toThrow(new RegExp(short.slice(0, 12).replace(/[+/]/g, '.')));
  });

  it('retries on the production schedule unless told otherwise', () => {
    expect(readWorkerConfig(required).config.retryDelaysMs).toEqual([...PRODUCTION_RETRY_DELAYS_MS]);
    expect(readWorkerConfig({ ...required, WEBHOOK_RETRY_DELAYS_MS: '10,20,30,40,50' }).config.retryDelaysMs).toEqual([10, 20, 30, 40, 50]);
  });

  it('refuses a schedule that is not five delays RabbitMQ can hold as a queue TTL, naming the variable', () => {
    for (const delays of ['10,20,30,40', '10,20,30,40,0', '10,20,30,40,-5', '10,20,30,40,1.5', `10,20,30,40,${2 ** 32}`]) {
      expect(() => readWorkerConfig({ ...required, WEBHOOK_RETRY_DELAYS_MS: delays })).toThrow(ConfigError);
      expect(() => readWorkerConfig({ ...required, WEBHOOK_RETRY_DELAYS_MS: delays })).toThrow(/WEBHOOK_RETRY_DELAYS_MS/);
    }
    expect(readWorkerConfig({ ...required, WEBHOOK_RETRY_DELAYS_MS: `1,2,3,4,${2 ** 32 - 1}` }).config.retryDelaysMs[4]).toBe(2 ** 32 - 1);
  });

  it('throttles on the production ladder unless told otherwise, and refuses a ladder RabbitMQ cannot hold as queue TTLs', () => {
    expect(readWorkerConfig(required).config.throttleDelaysMs).toEqual([...PRODUCTION_THROTTLE_DELAYS_MS]);
    expect(readWorkerConfig({ ...required, WEBHOOK_THROTTLE_DELAYS_MS: '100' }).config.throttleDelaysMs).toEqual([100]);
    for (const delays of [',', '100,0', '100,-5', '1.5', `${2 ** 32}`, '1,2,3,4,5,6,7,8,9,10,11']) {
      expect(() => readWorkerConfig({ ...required, WEBHOOK_THROTTLE_DELAYS_MS: delays })).toThrow(/WEBHOOK_THROTTLE_DELAYS_MS/);
    }
  });
});
