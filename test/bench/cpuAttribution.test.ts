/**
 * The CPU attribution of bench/cpuProfile.ts (bench/cpuAttribution.ts): samples inside the windows only, each
 * sample's time (until the next sample) given to its frame's bucket; package frames by area from their source file;
 * n8n/Node frames in "incl" to their nearest package caller's area, through n8n's binary data to the hand-over;
 * shared files (the HTTP job) to their caller's area; work resumed after an await: n8n's binary data to the hand-over,
 * the package's undici to HTTP; the per-function rows.
 */
import { areaOf, attributeProfile, busyByBin, frameKind, parseCpuProfile, type CpuProfile } from '../../bench/cpuAttribution';

const PKG_ROOT = '/home/u/.n8n/nodes/node_modules/n8n-nodes-flux-concurrent';
const PKG = `${PKG_ROOT}/dist`;
const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });

/** root → program, idle, gc; root → prepare (readItem) → n8n getNodeParameter; root → collector → toBinary → n8n prepareBinaryData → node fs write, and collector → n8n setBinaryDataBuffer; root → poll → job send → undici. */
function profile(): CpuProfile {
	const nodes = [
		{ id: 1, callFrame: frame('(root)', ''), children: [2, 3, 4, 5, 8, 12, 16, 18, 20] },
		{ id: 2, callFrame: frame('(program)', '') },
		{ id: 3, callFrame: frame('(idle)', '') },
		{ id: 4, callFrame: frame('(garbage collector)', '') },
		{ id: 5, callFrame: frame('readItem', `file://${PKG}/src/fluxN8n/fluxParameterReader.js`, 40), children: [6] },
		{ id: 6, callFrame: frame('getNodeParameter', 'file:///x/node_modules/n8n-core/dist/execution-engine/node-execution-context.js'), children: [7] },
		{ id: 7, callFrame: frame('parse', '') },
		{ id: 8, callFrame: frame('waitForSlots', `file://${PKG}/src/collect/waitForSlots.js`), children: [9, 15] },
		{ id: 9, callFrame: frame('toBinary', `file://${PKG}/src/fluxN8n/fluxNode.js`), children: [10] },
		{ id: 10, callFrame: frame('prepareBinaryData', 'file:///x/node_modules/n8n-core/dist/execution-engine/node-execution-context/utils/binary-helper-functions.js'), children: [11] },
		{ id: 11, callFrame: frame('writeFile', 'node:internal/fs/promises') },
		{ id: 12, callFrame: frame('pollOnce', `file://${PKG}/src/flux/poll.js`), children: [13] },
		{ id: 13, callFrame: frame('send', `file://${PKG}/src/flux/job.js`), children: [14] },
		{ id: 14, callFrame: frame('request', 'file:///x/node_modules/undici/lib/api/api-request.js') },
		{ id: 15, callFrame: frame('setBinaryDataBuffer', 'file:///x/node_modules/n8n-core/dist/execution-engine/node-execution-context/utils/binary-helper-functions.js') },
		// Resumed after an await (no package frame): the package's undici reading an answer, n8n's blob store writing, n8n's database.
		{ id: 16, callFrame: frame('onData', `file://${PKG_ROOT}/node_modules/undici/lib/api/api-request.js`), children: [17] },
		{ id: 17, callFrame: frame('nextTick', 'node:internal/process/task_queues') },
		{ id: 18, callFrame: frame('write', 'file:///x/node_modules/@n8n/blob-storage/dist/fs-byte-store.js'), children: [19] },
		{ id: 19, callFrame: frame('writeFile', 'node:internal/fs/promises') },
		{ id: 20, callFrame: frame('runQuery', 'file:///x/node_modules/@n8n/typeorm/dist/driver/sqlite-pooled/SqliteLibrary.js') },
	];
	// One sample per entry, 1000 µs apart; in the [2000, 12000] window the first and the last two fall outside.
	const samples = [2, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15, 2, 17, 19, 20];
	const timeDeltas = samples.map(() => 1000);
	return { nodes, startTime: 0, endTime: 18_000, samples, timeDeltas };
}

describe('cpu attribution', () => {
	const where = { name: 'n8n-nodes-flux-concurrent', dependencies: ['undici'] };

	it('counts only the samples inside the windows, each for the time until the next sample', () => {
		const a = attributeProfile(profile(), [[2000, 12_000]], where);
		expect(a.sampledUs).toBe(11_000);
		expect(a.windowUs).toBe(10_000);
		expect(a.own.program).toBe(1000); // the one at 2000; the ones at 1000 and 13000 are outside
		expect(a.own.idle).toBe(1000);
		expect(a.own.gc).toBe(1000);
	});

	it("gives package frames their area and n8n/Node frames their own bucket in 'own'", () => {
		const a = attributeProfile(profile(), [[0, 20_000]], where);
		expect(a.own.prepare).toBe(1000);
		expect(a.own.handOver).toBe(1000); // toBinary itself
		expect(a.own.polling).toBe(1000); // job.ts send is shared: its caller pollOnce is polling
		expect(a.own.n8n).toBe(4000); // getNodeParameter, prepareBinaryData, setBinaryDataBuffer, the database
		expect(a.own.deps).toBe(1000); // the request's undici
		expect(a.own.node).toBe(4000); // the native parse, node:internal/fs twice, nextTick
		expect(a.own.collector).toBe(0);
	});

	it("moves n8n/Node frames to their nearest package caller in 'incl', through n8n's binary data to the hand-over", () => {
		const a = attributeProfile(profile(), [[0, 20_000]], where);
		expect(a.incl.prepare).toBe(3000); // readItem + getNodeParameter + parse
		expect(a.incl.handOver).toBe(5000); // toBinary + prepareBinaryData + the fs write below it + the collector's setBinaryDataBuffer + the blob store's write
		expect(a.incl.collector).toBe(0);
		expect(a.incl.polling).toBe(2000); // send + undici
		expect(a.incl.n8n).toBe(1000); // the database: not the package's
		expect(a.incl.node).toBe(0);
		expect(a.incl.http).toBe(1000); // the package's undici, resumed after an await
		const readItem = a.functions.find((fn) => fn.functionName === 'readItem');
		expect(readItem).toMatchObject({ areas: ['prepare'], file: 'src/fluxN8n/fluxParameterReader', lineNumber: 40, ownUs: 1000, inclUs: 3000 });
		expect(a.functions[0].inclUs).toBeGreaterThanOrEqual(a.functions[a.functions.length - 1].inclUs);
	});

	it('tells the package apart from n8n, Node and the bench harness, installed or run from the checkout', () => {
		expect(frameKind(frame('f', `file://${PKG}/src/store/claims/fileClaims.js`), where)).toEqual({ kind: 'package', file: 'src/store/claims/fileClaims' });
		const checkout = { name: 'n8n-nodes-flux-concurrent', repoRoot: '/repo' };
		expect(frameKind(frame('f', 'file:///repo/src/store/journal.ts'), checkout)).toEqual({ kind: 'package', file: 'src/store/journal' });
		expect(frameKind(frame('f', '/repo/bench/worker.ts'), checkout)).toEqual({ kind: 'harness' });
		expect(frameKind(frame('f', '/repo/node_modules/n8n-core/dist/x.js'), checkout)).toEqual({ kind: 'n8n' });
		expect(frameKind(frame('f', `file://${PKG_ROOT}/node_modules/zod/lib/types.js`), { ...where, dependencies: ['zod'] })).toEqual({ kind: 'deps' });
		expect(frameKind(frame('digest', ''), where)).toEqual({ kind: 'node' });
		expect(frameKind(frame('f', 'node:internal/crypto/hash'), where)).toEqual({ kind: 'node' });
	});

	it('maps the source files to the areas of the issue', () => {
		expect(areaOf('src/store/claims/claims', 'acquire')).toBe('claims');
		expect(areaOf('src/store/journalLog', 'append')).toBe('journal');
		expect(areaOf('src/spend/spendLedger', 'reserve')).toBe('ledger');
		expect(areaOf('src/flux/submit', 'post')).toBe('submit');
		expect(areaOf('src/flux/pollSchedule', 'adaptiveWait')).toBe('polling');
		expect(areaOf('src/flux/downloadFile', 'write')).toBe('download');
		expect(areaOf('src/flux/bodyFile', '_transform')).toBe('download'); // the download's file sink
		expect(areaOf('src/store/resultStore', 'adopt')).toBe('store');
		expect(areaOf('src/collect/waitForSlots', 'wait')).toBe('collector');
		expect(areaOf('src/fluxN8n/fluxJobKey', 'key')).toBe('prepare');
		expect(areaOf('src/fluxN8n/fluxNode', 'binary')).toBe('handOver'); // toBinary's step that calls prepareBinaryData
		expect(areaOf('src/fluxN8n/fluxNode', 'runItem')).toBe('otherPackage');
		expect(areaOf('src/pool/workerPool', 'run')).toBe('otherPackage');
		expect(areaOf('src/flux/request', 'request')).toBeUndefined();
	});

	it('says how busy the main thread was in each bin from the windows\' starts (idle samples not counted; the mean over the windows)', () => {
		// Samples at 1000, 2000, …, 17000 µs; the one at 3000 is idle.
		expect(busyByBin(profile(), [0], 5000, 3, where)).toEqual([3000, 5000, 5000]);
		expect(busyByBin(profile(), [0, 5000], 5000, 3, where)).toEqual([4000, 5000, 4000]);
		expect(busyByBin(profile(), [16_000], 5000, 2, where)).toEqual([2000, 0]); // past the profile's end: nothing
		// A sample's time split over the bins it spans: from 2500 to 5000, the last 500 µs of the sample at 2000, none of
		// the idle one at 3000, the 1000 µs of the one at 4000.
		expect(busyByBin(profile(), [2500], 2500, 1, where)).toEqual([1500]);
		expect(busyByBin(profile(), [2500], 1000, 3, where)).toEqual([500, 500, 1000]);
	});

	it('refuses a file that is not a V8 profile, naming it', () => {
		expect(() => parseCpuProfile('{"nodes": 3}', 'x.cpuprofile')).toThrow(/x\.cpuprofile is not a V8 \.cpuprofile/);
	});
});
