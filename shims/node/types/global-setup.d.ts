// The global setup and teardown entries of toolscored (Vitest, Jest).
declare function hook(...args: unknown[]): Promise<void | (() => Promise<void>)>;
export default hook;
