// The agent under test; AGENT_DRIFT=1 makes it drift on one city. Each
// test process notes its pid in PIDS_FILE (how many workers ran).
const fs = require('node:fs');

function agent(city) {
  if (process.env.PIDS_FILE) fs.appendFileSync(process.env.PIDS_FILE, `${process.pid}\n`);
  const to = process.env.AGENT_DRIFT && city === 'LA' ? 'SFO' : city;
  return {
    choices: [{ message: { role: 'assistant', tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'search_flights', arguments: JSON.stringify({ to, passengers: 2 }) } },
    ] } }],
  };
}

module.exports = { agent };
