import t from 'tap';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { LazyRequestLogger } from '../../src/plugins/request-logger.js';
import { ADMIN, buildTestApp } from '../helpers/app.js';
function capture() {
    const chunks = [];
    const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(chunk.toString()); done(); } });
    return { stream, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}
t.test('the child is made on the first line, with the bindings and options Fastify gave', async (t) => {
    const { stream, lines } = capture();
    const parent = pino({ level: 'info' }, stream);
    let children = 0;
    const counting = Object.assign(Object.create(parent), {
        child: (...args) => (children++, parent.child(...args)),
    });
    const log = new LazyRequestLogger(counting, { reqId: 'r-1' }, { msgPrefix: '[x] ' });
    t.equal(log.level, 'info', 'the parent level before any line');
    t.equal(children, 0, 'no child for a request that logs nothing');
    log.info({ extra: 1 }, 'hello %s', 'there');
    log.warn('plain');
    log.debug('below the level');
    t.equal(children, 1, 'one child, made once');
    const [first, second] = lines();
    t.match(first, { reqId: 'r-1', extra: 1, msg: '[x] hello there', level: 30 });
    t.match(second, { reqId: 'r-1', msg: '[x] plain', level: 40 });
    t.equal(lines().length, 2, 'debug stays below the level');
    log.child({ step: 'inner' }).error('nested');
    t.match(lines()[2], { reqId: 'r-1', step: 'inner', msg: '[x] nested', level: 50 });
});
t.test('request lines in the app carry the request id (request logging at debug)', async (t) => {
    const { stream, lines } = capture();
    const app = await buildTestApp(t, { LOG_LEVEL: 'debug' }, { logger: { level: 'debug', stream } });
    const res = await app.inject({ url: '/api/admin/projects', headers: { ...ADMIN, 'x-request-id': 'req-42' } });
    t.equal(res.statusCode, 200);
    const mine = lines().filter((l) => l.reqId === 'req-42');
    t.ok(mine.some((l) => l.msg === 'incoming request'), 'incoming request');
    t.ok(mine.some((l) => l.msg === 'request completed'), 'request completed');
});
//# sourceMappingURL=request-logger.test.js.map