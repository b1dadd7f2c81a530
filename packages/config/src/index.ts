export { loadConfig, ConfigError } from './load-config.js';
export type { ConfigSpec, ConfigValues, LoadedConfig } from './load-config.js';
export { string, integer, boolean, oneOf, list, url, base64Key, base64Keys } from './variables.js';
export type { Variable } from './variables.js';
