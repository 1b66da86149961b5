// The floor of a check through a daemon in Node: JSON.stringify, one round
// trip over a Unix socket to the C echo server ($TS_BENCH_ECHO,
// tests/bench/echo_server.c), and the await of its answer.
const net = require('node:net');

let sock = null;

function connect() {
  return new Promise((resolve, reject) => {
    const s = net.createConnection({ path: process.env.TS_BENCH_ECHO });
    s.once('error', reject);
    s.once('connect', () => resolve(s));
  });
}

exports.floorCheck = async function floorCheck(value) {
  if (sock === null) sock = await connect();
  const data = Buffer.from(JSON.stringify(value));
  await new Promise((resolve) => {
    let got = 0;
    const on = (chunk) => {
      got += chunk.length;
      if (got >= data.length) {
        sock.removeListener('data', on);
        resolve();
      }
    };
    sock.on('data', on);
    sock.write(data);
  });
};

exports.floorClose = function floorClose() {
  if (sock !== null) sock.destroy();
  sock = null;
};
