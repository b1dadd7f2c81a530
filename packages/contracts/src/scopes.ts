/** Scopes of specification section 2.3. Full access is a separate flag, not a list of these. */
export const SCOPE_NAMES = [
  'suggestions:read',
  'suggestions:write',
  'tickets:read',
  'tickets:write',
  'analytics:read',
  'privacy:read',
  'privacy:write',
] as const;
export type Scope = (typeof SCOPE_NAMES)[number];
