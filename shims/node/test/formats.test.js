// The TypeScript SDKs' shapes through the package against a real daemon
// (tests/test_node.sh sets TOOLSCORED), handed over as the SDKs hand them:
// LangChain messages that serialize themselves (toJSON, the lc form), Vercel
// AI SDK steps whose getters JSON leaves out. The daemon detects and
// extracts them (docs/extraction.md): a LangGraph API thread state, a
// LangGraph.js messages stream with subgraphs, an OpenAI Agents JS history
// without calls, a Vercel AI SDK onFinish event; each records its calls,
// then replays as passed. A stream of the wrong shape is a DaemonError of
// code "format" naming what was wrong. The fixtures are the C suites'
// (tests/data/extract).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DaemonError, findDaemon, resolveStore, toMatchToolSnapshot, toolSnapshot } from '../src/index.js';
import { connection } from '../src/client.js';
import { tempDir } from './helpers.js';

const daemon = findDaemon();
const DATA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../tests/data/extract');
const load = (file) => JSON.parse(fs.readFileSync(path.join(DATA, file), 'utf8'));

// @langchain/core's messages: Serializable.toJSON gives the lc form.
class Serializable {
  constructor(kwargs) {
    Object.defineProperty(this, 'lc_kwargs', { value: kwargs });
    Object.assign(this, kwargs);
  }
  toJSON() {
    return { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', this.constructor.name], kwargs: this.lc_kwargs };
  }
}
class AIMessageChunk extends Serializable {}
class ToolMessage extends Serializable {}
const MESSAGES = { AIMessageChunk, ToolMessage };

// graph.stream(input, { streamMode: 'messages', subgraphs: true }) yields
// [namespace, [message, metadata]] with message instances.
function liveStream(recorded) {
  return recorded.map(([ns, [msg, meta]]) => [ns, [new MESSAGES[msg.id.at(-1)](msg.kwargs), meta]]);
}

// ai's DefaultStepResult: its fields, and getters that JSON leaves out.
class DefaultStepResult {
  constructor(fields) {
    Object.assign(this, fields);
  }
  get text() {
    return this.content.filter((p) => p.type === 'text').map((p) => p.text).join('');
  }
  get toolCalls() {
    return this.content.filter((p) => p.type === 'tool-call');
  }
  get toolResults() {
    return this.content.filter((p) => p.type === 'tool-result');
  }
}

// The event onFinish receives: the last step's fields and all the steps.
function onFinishEvent(recorded) {
  return { ...recorded, steps: recorded.steps.map((s) => new DefaultStepResult(s)) };
}

const shapes = [
  { name: 'langgraph thread state', file: 'langgraph_js_thread_state', value: (v) => v },
  { name: 'langgraph stream with subgraphs', file: 'langgraph_js_stream_subgraphs', value: liveStream },
  { name: 'agents js history without calls', file: 'openai_agents_js_history_no_calls', value: (v) => v },
  { name: 'vercel ai onFinish', file: 'vercel_ai_v6_on_finish', value: onFinishEvent },
  { name: 'vercel ai onFinish, text last', file: 'vercel_ai_v6_on_finish_text', value: onFinishEvent },
];

test('a real daemon: the TypeScript SDKs\' shapes through the matcher', { skip: daemon.error }, async () => {
  const dir = tempDir();
  fs.chmodSync(dir, 0o700);
  const saved = { ...process.env };
  process.env.TOOLSCORE_SOCKET = path.join(dir, 'd.sock');
  process.env.TOOLSCORE_PROJECT_ROOT = dir;
  process.env.TOOLSCORE_DIR = path.join(dir, 'snapshots');
  for (const k of ['CI', 'TOOLSCORE_RUN', 'TOOLSCORE_RECORD_UPDATE']) delete process.env[k];
  const c = connection();
  const store = resolveStore(process.env.TOOLSCORE_DIR);
  const state = { testPath: path.join(dir, 'formats.test.js'), currentTestName: 'formats' };
  const warn = console.warn;
  console.warn = () => {}; // the "created - review it" lines
  try {
    for (const shape of shapes) {
      const value = shape.value(load(`${shape.file}.json`));
      const created = await toMatchToolSnapshot.call(state, value, { name: shape.name });
      assert.equal(created.pass, true, shape.name);
      const shown = await c.request('show', { store, name: shape.name });
      assert.deepEqual(shown.snapshot.calls, load(`${shape.file}.expected.json`), shape.name);
      await c.request('approve', { store, names: [shape.name] });
      const replayed = await toMatchToolSnapshot.call(state, shape.value(load(`${shape.file}.json`)), { name: shape.name });
      assert.equal(replayed.pass, true, shape.name);
      assert.match(replayed.message(), /PASSED/, shape.name);
    }
    // hostile streams: the check fails with the daemon's format error
    const chunk = (chunks) => new AIMessageChunk({ content: '', id: 'm1', tool_call_chunks: chunks });
    const rejects = (value, pattern) =>
      assert.rejects(toMatchToolSnapshot.call(state, value, { name: 'hostile' }), (e) => {
        assert.ok(e instanceof DaemonError, String(e));
        assert.equal(e.code, 'format');
        assert.match(e.message, pattern);
        return true;
      });
    await rejects(
      [[['agent:1'], 'messages', [chunk([{ name: 'f', args: '{}', id: 'c', index: 0 }]), {}]]],
      /message at index 0 is a \[namespace, mode, chunk\] tuple/,
    );
    await rejects([[['agent:1'], [chunk([{ name: 'f', args: 5, id: 'c', index: 0 }]), {}]]], /tool_call_chunks\[0\]\.args is a number/);
    await rejects(
      [
        [['a:1'], [chunk([{ name: 'f', args: '{"x": 1}', id: 'c1', index: 0 }]), {}]],
        [['a:1'], [chunk([{ name: 'f', args: '{"x": 2}', id: 'c1', index: 1 }]), {}]],
      ],
      /call 'c1' at index 1 of message 'm1' was already streamed at index 0 of message 'm1'/,
    );
    const none = await c.request('show', { store, name: 'hostile' }).catch((e) => e);
    assert.ok(none instanceof DaemonError && none.code === 'not_found', 'a refused check records nothing');
    await c.request('stop', {});
  } finally {
    console.warn = warn;
    c.close();
    process.env = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
