export { AuthorityKeys, AuthorityKeysUnavailable } from './authority-keys.js';
export type { AuthorityKeysOptions } from './authority-keys.js';
