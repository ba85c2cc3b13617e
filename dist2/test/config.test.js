import t from 'tap';
import { loadConfig, ConfigError } from '../src/config.js';
t.test('defaults', async (t) => {
    const config = loadConfig({});
    t.equal(config.PORT, 4242);
    t.equal(config.HOST, '0.0.0.0');
    t.equal(config.MONGODB_DB, 'vane');
    t.equal(config.baseUrl, 'http://localhost:4242');
    t.equal(config.DATA_DIR, './data');
    t.equal(config.PLAYGROUND_EVALUATION_LIMIT, 15000);
    t.same(config.adminTokens, []);
    t.equal(config.MONGODB_WRITE_CONCERN, 'majority', 'majority write concern');
    t.equal(config.MONGODB_JOURNAL, 'true', 'with journaling');
    t.equal(config.monitorCommands, false, 'driver commands not logged');
});
t.test('VANE_MONITOR_COMMANDS: only 1 turns the command log on', async (t) => {
    t.equal(loadConfig({ VANE_MONITOR_COMMANDS: '1' }).monitorCommands, true);
    t.equal(loadConfig({ VANE_MONITOR_COMMANDS: '0' }).monitorCommands, false);
    t.equal(loadConfig({ VANE_MONITOR_COMMANDS: 'true' }).monitorCommands, false, 'as before: any other value is off, not an error');
    t.equal(loadConfig({ VANE_MONITOR_COMMANDS: '' }).monitorCommands, false);
});
t.test('values are parsed and validated', async (t) => {
    const config = loadConfig({ PORT: '8080', INIT_ADMIN_API_TOKENS: '*:*.abcdefgh, *:*.ijklmnop', BASE_URL: 'https://x.io/unleash/' });
    t.equal(config.PORT, 8080);
    t.same(config.adminTokens, ['*:*.abcdefgh', '*:*.ijklmnop']);
    t.equal(config.baseUrl, 'https://x.io/unleash');
});
t.test('a bad value names the variable', async (t) => {
    t.throws(() => loadConfig({ PORT: 'eighty' }), { name: 'ConfigError', message: /PORT/ });
    t.throws(() => loadConfig({ PORT: '70000' }), /PORT/);
    t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
    t.throws(() => loadConfig({ MONGODB_URL: 'http://nope' }), /MONGODB_URL/);
    t.throws(() => loadConfig({ INIT_ADMIN_API_TOKENS: 'client:dev.abc' }), /INIT_ADMIN_API_TOKENS/);
    t.throws(() => loadConfig({ BASE_URL: 'localhost' }), /BASE_URL/);
    t.throws(() => loadConfig({ MONGODB_WRITE_CONCERN: 'some' }), /MONGODB_WRITE_CONCERN/);
    t.equal(loadConfig({ MONGODB_WRITE_CONCERN: '1', MONGODB_JOURNAL: 'false' }).MONGODB_WRITE_CONCERN, '1');
    t.ok(new ConfigError('x') instanceof Error);
});
//# sourceMappingURL=config.test.js.map