// Types of the toolscored package (see docs/node.md).

/** Options of toolSnapshot and toMatchToolSnapshot. */
export interface ToolSnapshotOptions {
  /** Snapshot name; default: "<test file relative to the root>::<full test name>", then -2, -3. */
  name?: string;
  /** Pass threshold of the composite score (default 1.0). */
  minScore?: number;
  /** Scoring weights (scoring.md), e.g. { selection: 0.4, args: 0.4, sequence: 0.2 }. */
  weights?: Record<string, number> | null;
  /** Strict comparison (scoring.md). */
  strict?: boolean;
  /** Comparison rules for this check (docs/rules.md), merged over the project's .toolscore/config.json. */
  rules?: ToolSnapshotRules | null;
  /** Extraction format (default "auto"), e.g. "vercel-ai", "openai-agents-js", "mastra". */
  format?: string;
}

/** Comparison rules (docs/rules.md); every key optional. */
export interface ToolSnapshotRules {
  /** Argument paths removed before comparing, e.g. "book.args.request_id", "*.args.ts". */
  ignore?: string[];
  /** Argument paths replaced by "[redacted]" before anything is written or compared. */
  redact?: string[];
  /** How the calls are paired. */
  order?: 'strict' | 'unordered' | 'superset' | 'subset';
  /** Matchers relaxing argument comparisons, per path pattern. */
  match?: Record<string, Record<string, unknown>>;
  /** Per tool: { ignore: true } leaves its calls out. */
  tools?: Record<string, { ignore?: boolean }>;
}

/** The scores of a replay that passed (the scoring keys of scoring.md). */
export interface ToolSnapshotResult {
  outcome: 'PASSED';
  name: string;
  file: string;
  score: number;
  passed: boolean;
  [metric: string]: unknown;
}

/** Check actual against its snapshot: null when created, pending or updated. */
export function toolSnapshot(actual: unknown, options?: ToolSnapshotOptions): Promise<ToolSnapshotResult | null>;

/** The matcher, for expect.extend (the setup files register it). */
export function toMatchToolSnapshot(
  this: unknown,
  received: unknown,
  options?: ToolSnapshotOptions,
): Promise<{ pass: boolean; message: () => string }>;

export class ToolscoreError extends Error {
  code: string;
  constructor(code: string, message: string, options?: { cause?: unknown });
}
/** An error reply of the daemon; code as on the wire ("format", "invalid_calls", ...). */
export class DaemonError extends ToolscoreError {
  method: string | null;
  /** store_busy: the socket of the daemon holding the store (requests are sent there). */
  socket?: string;
}
/** unavailable, disconnected, timeout, bad_reply, untrusted (the socket is not the user's: nothing was sent). */
export class ConnectionError extends ToolscoreError {
  socket: string;
}
/** FAILED, ERROR_MISSING_IN_CI, ERROR_PENDING_IN_CI; message: the drift report or the CI rule. */
export class SnapshotError extends ToolscoreError {
  outcome: 'FAILED' | 'ERROR_MISSING_IN_CI' | 'ERROR_PENDING_IN_CI';
  snapshotName: string;
  file: string;
  result: Record<string, unknown> | null;
  report: string | null;
}

export interface ConnectionOptions {
  socketPath?: string;
  autoStart?: boolean;
  connectTimeoutMs?: number;
  client?: string;
  /** Every request's deadline in ms (0: none); default: TOOLSCORE_TIMEOUT (seconds), else 10 s for hello, ping, status and stop and 60 s for the rest. */
  timeoutMs?: number;
}
/** One connection to toolscored (docs/protocol.md). */
export class Connection {
  constructor(options?: ConnectionOptions);
  readonly socketPath: string;
  /** The daemon's version, from hello (null before connecting, or when it did not say). */
  readonly serverVersion: string | null;
  request(method: string, params?: Record<string, unknown>): Promise<any>;
  connect(): Promise<void>;
  close(): void;
}
export const PROTOCOL: 1;
/** This package's build (docs/packaging.md); null in the source tree. */
export const VERSION: string | null;
/** This worker's connection. */
export function connection(): Connection;
/** The daemon for auto-start: $TOOLSCORED, the platform package's, PATH. */
export function findDaemon(env?: Record<string, string | undefined>): { path?: string; error?: string };
export function defaultSocketPath(env?: Record<string, string | undefined>): string;
export function resolveStore(root: string, base?: string): string;
export function storePath(root?: string): string;
export function projectRoot(): string;
export function testId(test: { testPath?: string; testName?: string }, root?: string): string | undefined;
export function resetNames(): void;
export function toWire(value: unknown, where?: string): unknown;
export function registerRunner(name: string, expect: unknown): void;

export interface RunSummary {
  run: string;
  store: string;
  summary: string;
  counts: Record<string, number>;
  duplicates: { name: string; tests: string[] }[];
  /** The lines of flaky names (docs/rules.md, "Repeats"), printed after the summary line. */
  flaky_lines?: string[];
  [key: string]: unknown;
}
export function openRun(options?: { root?: string; label?: string }): Promise<string>;
export function closeRun(options?: { print?: (line: string) => void }): Promise<RunSummary | null>;
export function summaryLines(summary: RunSummary): string[];

/** The matcher on expect(...) (Vitest: types "toolscored/vitest/setup"; Jest: global or "toolscored/jest/setup"). */
export interface ToolSnapshotMatchers<R = unknown> {
  /** Check the received agent response against its tool-call snapshot. */
  toMatchToolSnapshot(options?: ToolSnapshotOptions): Promise<R>;
}

// Jest's global expect (@types/jest); @jest/globals: "toolscored/jest/setup".
declare global {
  namespace jest {
    interface Matchers<R> extends ToolSnapshotMatchers<R> {}
  }
}
