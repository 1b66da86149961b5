// Errors of the toolscored client: every one is a ToolscoreError with a
// stable `code` (the protocol's error codes of docs/protocol.md section 7,
// the client's local codes, or a check's outcome) to branch on.

/** Base class: `code` is stable, `message` is one line for people. */
export class ToolscoreError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'ToolscoreError';
    this.code = code;
  }
}

/**
 * An error reply of the daemon (`code` as on the wire, e.g. `format`);
 * `socket` is the holder's socket of a `store_busy` (the client follows it).
 */
export class DaemonError extends ToolscoreError {
  constructor(code, message, method, socket) {
    super(code, message);
    this.name = 'DaemonError';
    this.method = method;
    if (socket !== undefined) this.socket = socket;
  }
}

/**
 * The daemon could not be reached or the exchange broke: `unavailable`,
 * `disconnected`, `timeout`, `bad_reply` (local codes, as the C client's).
 * `socket` is the socket path.
 */
export class ConnectionError extends ToolscoreError {
  constructor(code, message, socket, options) {
    super(code, message, options);
    this.name = 'ConnectionError';
    this.socket = socket;
  }
}

/**
 * A check that did not pass: `code` is the outcome (`FAILED`,
 * `ERROR_MISSING_IN_CI`, `ERROR_PENDING_IN_CI`); the message is the
 * daemon's one line naming the snapshot, then for FAILED the drift report,
 * which ends with the commands that accept the calls and review everything.
 */
export class SnapshotError extends ToolscoreError {
  constructor(reply) {
    super(reply.outcome, reply.outcome === 'FAILED' && reply.report ? `${reply.message}\n\n${reply.report}` : reply.message);
    this.name = 'SnapshotError';
    this.outcome = reply.outcome;
    this.snapshotName = reply.name;
    this.file = reply.file;
    this.result = reply.result ?? null;
    this.report = reply.report ?? null;
  }
}
