export { loadConfig, environmentOf, ConfigError } from './load-config.js';
export type { ConfigOf, ConfigSpec, LoadedConfig } from './load-config.js';
export { variable, string, integer, boolean, oneOf, list, url, base64Key, base64Keys } from './variables.js';
export type { Common, Variable } from './variables.js';
