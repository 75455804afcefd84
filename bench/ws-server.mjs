// The loopback Responses WebSocket server from openai-rx/testing, in its own process (so serving frames does
// not share the measured process's CPU). Prints `listening <url>`.
const distRoot = process.env.OPENAI_RX_DIST ? new URL(`file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}`) : new URL('../dist/', import.meta.url);
const testing = await import(new URL('esm/testing/index.js', distRoot).href);
const server = await testing.startResponsesWebSocketServer();
process.stdout.write(`listening ${server.url}\n`);
process.stdin.on('end', () => server.close().then(() => process.exit(0)));
process.stdin.resume();
