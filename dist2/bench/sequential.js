/**
 * S3's measuring client, run as its own process by bench/playground.ts: sequential GETs of one URL
 * (one connection). In the load generator's process its responses would queue behind the
 * saturating S1 traffic on the same event loop and measure the client, not the server.
 * Usage: node dist/bench/sequential.js <url> <authorization> <seconds>; prints autocannon's result as JSON.
 */
import autocannon from 'autocannon';
const [url, authorization, seconds] = process.argv.slice(2);
autocannon({ url, method: 'GET', headers: { authorization }, connections: 1, duration: Number(seconds) }, (err, result) => {
    if (err) {
        console.error(err);
        process.exit(1);
    }
    process.stdout.write(JSON.stringify({ p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total, non2xx: result.non2xx }));
});
//# sourceMappingURL=sequential.js.map