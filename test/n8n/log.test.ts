import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LoggerProxy } from 'n8n-workflow';
import { PACKAGE_LOG_PREFIX, log, logWarning } from '../../src/n8n/log';
import { getPoolSet } from '../../src/pool';
import { resetProcessWide } from '../../src/processWide';

function fakeLogger() {
	const logger = { error: jest.fn(), warn: jest.fn(), info: jest.fn(), debug: jest.fn() };
	LoggerProxy.init(logger);
	return logger;
}

describe("the package's logger goes through n8n's LoggerProxy", () => {
	const savedEnv = { ...process.env };
	afterEach(async () => {
		await resetProcessWide(['settings', 'poolSet']);
		process.env = { ...savedEnv };
		jest.restoreAllMocks();
	});

	it('a warning reaches n8n\'s logger with the package name, redacted, and nothing reaches the console', () => {
		const logger = fakeLogger();
		const consoleWarn = jest.spyOn(console, 'warn');
		logWarning('redis at redis://user:pw@127.0.0.1:6379 refused Bearer sk-abc123456', { attempt: 2 });
		expect(logger.warn).toHaveBeenCalledTimes(1);
		expect(logger.warn).toHaveBeenCalledWith(`${PACKAGE_LOG_PREFIX} redis at [URL] refused Bearer [REDACTED]`, {
			package: 'n8n-nodes-flux-concurrent',
			attempt: 2,
		});
		expect(consoleWarn).not.toHaveBeenCalled();
	});

	it('each level goes to the same level, the prefix is not doubled, extra secrets are redacted', () => {
		const logger = fakeLogger();
		log('error', `${PACKAGE_LOG_PREFIX} key my-secret-value-42 leaked?`, {}, ['my-secret-value-42']);
		log('info', 'started');
		log('debug', 'polled');
		expect(logger.error).toHaveBeenCalledWith(`${PACKAGE_LOG_PREFIX} key [REDACTED] leaked?`, expect.any(Object));
		expect(logger.info).toHaveBeenCalledWith(`${PACKAGE_LOG_PREFIX} started`, expect.any(Object));
		expect(logger.debug).toHaveBeenCalledWith(`${PACKAGE_LOG_PREFIX} polled`, expect.any(Object));
		expect(logger.warn).not.toHaveBeenCalled();
	});

	it('a bad COMFLY_* value is warned through LoggerProxy', () => {
		const logger = fakeLogger();
		process.env.COMFLY_IMAGE_CONCURRENCY = 'lots';
		getPoolSet();
		expect(logger.warn).toHaveBeenCalledWith(
			`${PACKAGE_LOG_PREFIX} COMFLY_IMAGE_CONCURRENCY="lots" is not an integer; using 30.`,
			expect.objectContaining({ package: 'n8n-nodes-flux-concurrent' }),
		);
	});

	it('no console call remains in src/', () => {
		const offenders: string[] = [];
		const walk = (dir: string): void => {
			for (const name of readdirSync(dir)) {
				const path = join(dir, name);
				if (statSync(path).isDirectory()) walk(path);
				else if (path.endsWith('.ts') && /\bconsole\s*\.\s*[a-z]/i.test(readFileSync(path, 'utf8'))) offenders.push(path);
			}
		};
		walk(join(__dirname, '../../src'));
		expect(offenders).toEqual([]);
	});
});
