// Whether a redis-server answers on a loopback port: PING, and PONG back within a second. Shared by the scripts that
// start their own redis-server (the conformance run) and the benchmarks.
import { Socket } from 'node:net';

/** Resolves true once the server on `port` answered PING with PONG, false on an error, another answer or after 1 s. */
export function ping(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    let data = '';
    const done = (v) => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (c) => {
      data += c;
      if (data.includes('\r\n')) done(data.startsWith('+PONG'));
    });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}
