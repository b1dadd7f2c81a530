export {
  SECRET_KEY_PREFIX,
  generateSecretKey,
  isWellFormedSecretKey,
  hashSecretKey,
  displayPrefixOf,
} from './secret-key.js';
export type { NewSecretKey } from './secret-key.js';
export { PUBLIC_KEY_PREFIX, generatePublicKey, isWellFormedPublicKey } from './public-key.js';
