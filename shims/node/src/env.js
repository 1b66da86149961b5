// The caller's environment, read as docs/snapshots.md says: CI is on when
// `CI` is set and non-empty (any value), update when TOOLSCORE_RECORD_UPDATE
// is anything but empty, 0, false or no (case-insensitive, trimmed).

export function ciFromEnv(env = process.env) {
  return typeof env.CI === 'string' && env.CI !== '';
}

export function truthy(value) {
  if (typeof value !== 'string') return false;
  const v = value.trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false' && v !== 'no';
}

export function updateFromEnv(env = process.env) {
  return truthy(env.TOOLSCORE_RECORD_UPDATE);
}

/** A variable's value, or undefined when unset or empty. */
export function envValue(name, env = process.env) {
  const v = env[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
