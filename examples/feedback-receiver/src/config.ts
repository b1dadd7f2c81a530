/** The receiver's settings, from the environment; a missing or malformed one stops it, naming it. */
export interface ReceiverConfig {
  /** PORT: where it listens. Default: 4000. */
  port: number;
  /** FEEDBACK_WEBHOOK_SECRET: the endpoint's whsec_ secret, shown once in the dashboard. */
  webhookSecret: string;
  /** FEEDBACK_API_URL: the API's base URL, e.g. https://api.feedback.example. */
  apiUrl: string;
  /** FEEDBACK_API_KEY: the app's sk_live_ key, with suggestions:read and tickets:read (for the recovery sweep). */
  apiKey: string;
  /** DATABASE_URL: PostgreSQL for handled ids and the checkpoint. Default: none (kept in memory, lost on restart). */
  databaseUrl: string | undefined;
  /** TLS_CERT_FILE and TLS_KEY_FILE: serve HTTPS itself. Default: plain HTTP, behind your TLS-terminating proxy. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** RECOVER_HOURS: how far back the first recovery sweep looks when there is no checkpoint yet. Default: 24. */
  recoverHours: number;
  /** SWEEP_INTERVAL_SECONDS: time between recovery sweeps, the first at start-up; 1 to 86400. Default: 3600. */
  sweepIntervalSeconds: number;
}

export function readConfig(env: Record<string, string | undefined>): ReceiverConfig {
  const problems: string[] = [];
  const required = (name: string, prefix = '') => {
    const value = env[name];
    if (!value || !value.startsWith(prefix)) problems.push(`${name} is required${prefix ? ` and starts with ${prefix}` : ''}`);
    return value ?? '';
  };
  const number = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 0) problems.push(`${name} must be a whole number`);
    return value;
  };
  const certFile = env['TLS_CERT_FILE'];
  const keyFile = env['TLS_KEY_FILE'];
  if (Boolean(certFile) !== Boolean(keyFile)) problems.push('TLS_CERT_FILE and TLS_KEY_FILE go together');
  const config: ReceiverConfig = {
    port: number('PORT', 4000),
    webhookSecret: required('FEEDBACK_WEBHOOK_SECRET', 'whsec_'),
    apiUrl: required('FEEDBACK_API_URL'),
    apiKey: required('FEEDBACK_API_KEY', 'sk_live_'),
    databaseUrl: env['DATABASE_URL'] || undefined,
    tls: certFile && keyFile ? { certFile, keyFile } : undefined,
    recoverHours: number('RECOVER_HOURS', 24),
    sweepIntervalSeconds: number('SWEEP_INTERVAL_SECONDS', 3600),
  };
  // At most a day: longer would also overflow a timer, which would then fire at once, in a loop.
  if (config.sweepIntervalSeconds < 1 || config.sweepIntervalSeconds > 86_400) problems.push('SWEEP_INTERVAL_SECONDS must be from 1 to 86400');
  if (problems.length > 0) throw new Error(`Configuration: ${problems.join('; ')}`);
  return config;
}
