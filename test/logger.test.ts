/** src/logger.ts: the shared machinery's log, before and after the n8n glue plugs n8n's logger in. */
type Logger = typeof import('../src/logger');

function freshLogger(): Logger {
	let loaded: Logger | undefined;
	jest.isolateModules(() => {
		loaded = jest.requireActual<Logger>('../src/logger');
	});
	return loaded!;
}

it('messages logged before a sink is registered wait, redacted, and reach the sink in order when it is', () => {
	const logger = freshLogger();
	logger.logWarning('store at /data refused Bearer sk-abc123456');
	logger.logInfo('started');
	const sink = jest.fn();
	logger.useLogSink(sink);
	expect(sink.mock.calls).toEqual([
		['warn', `${logger.PACKAGE_LOG_PREFIX} store at /data refused Bearer [REDACTED]`, { package: 'n8n-nodes-flux-concurrent' }],
		['info', `${logger.PACKAGE_LOG_PREFIX} started`, { package: 'n8n-nodes-flux-concurrent' }],
	]);
	logger.log('debug', 'after', { n: 1 });
	expect(sink).toHaveBeenLastCalledWith('debug', `${logger.PACKAGE_LOG_PREFIX} after`, { package: 'n8n-nodes-flux-concurrent', n: 1 });
});

it('keeps only the latest BUFFERED_BEFORE_SINK messages while no sink is registered, and says how many it dropped', () => {
	const logger = freshLogger();
	for (let i = 0; i < logger.BUFFERED_BEFORE_SINK + 5; i++) logger.logInfo(`message ${i}`);
	const sink = jest.fn();
	logger.useLogSink(sink);
	expect(sink).toHaveBeenCalledTimes(logger.BUFFERED_BEFORE_SINK + 1);
	expect(sink.mock.calls[0]).toEqual(['warn', `${logger.PACKAGE_LOG_PREFIX} 5 earlier messages logged before n8n's logger was ready were dropped`, { package: 'n8n-nodes-flux-concurrent' }]);
	expect(sink.mock.calls[1][1]).toBe(`${logger.PACKAGE_LOG_PREFIX} message 5`);
});

it("loading src/n8n/log plugs n8n's LoggerProxy in as the sink", () => {
	jest.isolateModules(() => {
		const { LoggerProxy } = jest.requireActual<typeof import('n8n-workflow')>('n8n-workflow');
		const warn = jest.fn();
		LoggerProxy.init({ error: jest.fn(), warn, info: jest.fn(), debug: jest.fn() });
		const logger = jest.requireActual<Logger>('../src/logger');
		logger.logWarning('before the glue loaded');
		expect(warn).not.toHaveBeenCalled();
		jest.requireActual('../src/n8n/log');
		expect(warn).toHaveBeenCalledWith(`${logger.PACKAGE_LOG_PREFIX} before the glue loaded`, { package: 'n8n-nodes-flux-concurrent' });
	});
});
