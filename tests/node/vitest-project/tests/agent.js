// A stand-in agent: the shapes the TypeScript SDKs return, as class
// instances with getters (as the SDKs' results are), so the package's
// conversion is exercised. AGENT_DRIFT=1 makes it book the wrong city;
// PIDS_FILE collects the worker processes that ran tests.
import fs from 'node:fs';

if (process.env.PIDS_FILE) fs.appendFileSync(process.env.PIDS_FILE, `${process.pid}\n`);

class StepResult {
  constructor(content) {
    this.content = content;
    this.finishReason = 'tool-calls';
  }
  get toolCalls() {
    return this.content.filter((p) => p.type === 'tool-call');
  }
}

class GenerateTextResult {
  constructor(steps) {
    this.steps = steps;
  }
  get toolCalls() {
    return this.steps.at(-1).toolCalls;
  }
}

const call = (id, toolName, input) => ({ type: 'tool-call', toolCallId: id, toolName, input });

export async function bookFlight(to) {
  const city = process.env.AGENT_DRIFT === '1' ? 'LA' : to;
  return new GenerateTextResult([
    new StepResult([call('c1', 'searchFlights', { from: 'SFO', to: city, passengers: 2, budget: 450.5 })]),
    new StepResult([call('c2', 'bookSeat', { flight: 'UA 512', seat: '14C' }), { type: 'text', text: 'Booked.' }]),
  ]);
}

export async function weather(city) {
  return { steps: [new StepResult([call(`w-${city}`, 'getWeather', { city })])] };
}

export async function refundAgent() {
  // OpenAI Agents JS: a RunResult serializes as its state
  const fc = (callId, name, args) => ({ type: 'function_call', id: `fc_${callId}`, callId, name, arguments: JSON.stringify(args), status: 'completed' });
  const a = fc('h1', 'get_order', { order_id: 'A-1001' });
  const b = fc('h2', 'issue_refund', { order_id: 'A-1001', amount: 25.5 });
  return {
    state: {
      generatedItems: [
        { type: 'tool_call_item', rawItem: a, agent: { name: 'Triage' } },
        { type: 'tool_call_item', rawItem: b, agent: { name: 'Refunds' } },
      ],
      modelResponses: [{ output: [a] }, { output: [b] }],
    },
  };
}

export class AIMessage {
  // LangChain.js messages serialize themselves with toJSON (the lc form)
  constructor(toolCalls) {
    this.tool_calls = toolCalls;
  }
  toJSON() {
    return { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'AIMessage'], kwargs: { content: '', tool_calls: this.tool_calls } };
  }
}
