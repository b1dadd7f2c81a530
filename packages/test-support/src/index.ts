export { resolveTestInfrastructure } from './infrastructure.js';
export type { TestInfrastructure } from './infrastructure.js';
export { createMigratedTestDatabase, createTestDatabase, createTestNamespace, deleteBrokerObjects, uniqueSuffix } from './isolation.js';
export type { MigratedTestDatabase, TestDatabase } from './isolation.js';
export { TcpProxy } from './tcp-proxy.js';
export { eventually } from './eventually.js';
export { freePort } from './free-port.js';
export { HttpsReceiver, testCertificates } from './https-receiver.js';
export type { ReceivedRequest, TestCertificates } from './https-receiver.js';
