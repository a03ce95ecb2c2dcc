// The load benchmark's baseline: a bare node:http server answering fixed JSON to any request
// (after reading its body), one process, as the service's instances are.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const FIXED = JSON.stringify(
  Array.from({ length: 4 }, (_, i) => ({ address: `address ${i}`, amt: 100_000, precised: 1 })),
);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(FIXED);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`bare server at http://127.0.0.1:${port}\n`);
});
const stop = () => {
  server.close();
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
