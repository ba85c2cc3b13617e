/**
 * S3's measuring client, run as its own process by bench/playground.ts: sequential GETs of one URL
 * (one connection). In the load generator's process its responses would queue behind the
 * saturating S1 traffic on the same event loop and measure the client, not the server.
 */
import autocannon from 'autocannon';
import { commandLine, usageError } from '../tools/cli.js';

const USAGE = `
Usage: node dist/bench/sequential.js <url> <authorization> <seconds>

Sequential GETs of <url> (one connection) for <seconds>; prints autocannon's p50, p99, total and
non-2xx as JSON. Run by bench/playground.ts (S3) and bench/sdk.ts (A) as a process of its own.
`;
const { positionals } = commandLine(USAGE, { allowPositionals: true });
const [url, authorization, seconds] = positionals;
if (url === undefined || authorization === undefined || seconds === undefined || positionals.length > 3) usageError(USAGE, 'expected three arguments');
autocannon({ url, method: 'GET', headers: { authorization }, connections: 1, duration: Number(seconds) }, (err, result) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
  process.stdout.write(JSON.stringify({ p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total, non2xx: result.non2xx }));
});
