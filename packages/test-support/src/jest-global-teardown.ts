import type { TestInfrastructure } from './infrastructure.js';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __testInfrastructure?: TestInfrastructure }).__testInfrastructure?.stop();
}
