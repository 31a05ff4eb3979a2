/**
 * A DevTools-protocol session with a Node process started with `--inspect=127.0.0.1:PORT` (undici's WebSocket): the
 * sampling heap profiler, and the process's GC pauses through a `PerformanceObserver` installed in it.
 */
import { WebSocket } from 'undici';
import { z } from 'zod';

import { gcKindOf, type GcPause } from './gcEvents';
import { parseHeapProfile, type HeapSamplingProfile } from './heapAttribution';

const answerSchema = z.object({ id: z.number(), result: z.unknown().optional(), error: z.object({ message: z.string() }).optional() });
const evaluateSchema = z.object({ result: z.object({ value: z.unknown().optional() }), exceptionDetails: z.object({ text: z.string() }).optional() });
const targetsSchema = z.array(z.object({ webSocketDebuggerUrl: z.string() }));

export class InspectorSession {
	private nextId = 1;
	private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

	private constructor(private readonly socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const parsed = answerSchema.safeParse(JSON.parse(String(event.data)));
			if (!parsed.success) return; // an event, not an answer
			const waiter = this.pending.get(parsed.data.id);
			this.pending.delete(parsed.data.id);
			if (parsed.data.error) waiter?.reject(new Error(`inspector: ${parsed.data.error.message}`));
			else waiter?.resolve(parsed.data.result);
		});
		socket.addEventListener('close', () => {
			for (const { reject } of this.pending.values()) reject(new Error('inspector: the connection closed'));
			this.pending.clear();
		});
	}

	/** Connects to the first target of the inspector on 127.0.0.1:`port`, retrying until `timeoutMs`. */
	static async connect(port: number, timeoutMs = 30_000): Promise<InspectorSession> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			try {
				const targets = targetsSchema.parse(await (await fetch(`http://127.0.0.1:${port}/json/list`)).json());
				const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
				await new Promise<void>((resolve, reject) => {
					socket.addEventListener('open', () => resolve());
					socket.addEventListener('error', () => reject(new Error(`inspector on port ${port}: the WebSocket failed`)));
				});
				return new InspectorSession(socket);
			} catch (error) {
				if (Date.now() > deadline) throw error;
				await new Promise((resolve) => setTimeout(resolve, 200));
			}
		}
	}

	call(method: string, params: object = {}): Promise<unknown> {
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			this.socket.send(JSON.stringify({ id, method, params }));
		});
	}

	/** Evaluates `expression` in the process (its global scope) and returns its JSON value. */
	async evaluate(expression: string): Promise<unknown> {
		const answer = evaluateSchema.parse(await this.call('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }));
		if (answer.exceptionDetails) throw new Error(`inspector: evaluating failed: ${answer.exceptionDetails.text}`);
		return answer.result.value;
	}

	/** Starts the sampling heap profiler, counting objects GC has already freed too (what was allocated, not what is left). */
	async startHeapSampling(samplingIntervalBytes = 16_384): Promise<void> {
		await this.call('HeapProfiler.enable');
		await this.call('HeapProfiler.startSampling', { samplingInterval: samplingIntervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
	}

	/** Stops the sampling heap profiler and returns its profile (`source` names it in an error). */
	async stopHeapSampling(source: string): Promise<HeapSamplingProfile> {
		return parseHeapProfile(z.object({ profile: z.unknown() }).parse(await this.call('HeapProfiler.stopSampling')).profile, source);
	}

	/** Starts recording the process's GC pauses (one observer per process; recording again clears the list). */
	async recordGc(): Promise<void> {
		await this.evaluate(`(() => {
			const state = (globalThis.__fluxBenchGc ??= { pauses: [] });
			state.pauses = [];
			if (!state.observer) {
				const { PerformanceObserver } = process.getBuiltinModule('node:perf_hooks');
				state.observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) state.pauses.push([e.detail?.kind ?? e.kind, e.duration]); });
				state.observer.observe({ entryTypes: ['gc'] });
			}
			return true;
		})()`);
	}

	/** The GC pauses since `recordGc`, and clears the list. */
	async takeGc(): Promise<GcPause[]> {
		// The observer's callback runs a tick after the entry: let the queued entries arrive first.
		const raw = z.array(z.tuple([z.number(), z.number()])).parse(
			await this.evaluate('new Promise((resolve) => setTimeout(() => { const s = globalThis.__fluxBenchGc; const p = s.pauses; s.pauses = []; resolve(p); }, 50))'),
		);
		return raw.map(([kind, ms]) => ({ kind: gcKindOf(kind), ms }));
	}

	close(): void {
		this.socket.close();
	}
}
