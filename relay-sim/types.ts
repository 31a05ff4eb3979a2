/** Public types of the relay simulator (its controls are in types.ts (RelaySimOptions) and faults.ts). */

export type ApiStyle = 'relay' | 'bfl';

export type LatencySpec =
	| number
	| { min: number; max: number; seed?: number | string }
	| ((prompt: string) => number);

export interface RelaySimOptions {
	port?: number; // 0 = random (default)
	host?: string; // default '127.0.0.1' (stay on loopback)
	apiKey?: string; // default 'sim-test-key-0123456789abcdef'
	latencyMs?: LatencySpec; // submit → Ready, default 0
	maxActiveTasks?: number; // beyond it, submit answers 429 + Retry-After (default: no cap)
	maxActiveVideoTasks?: number; // the same for flux-3-video, counted separately (default 5, like BFL)
	videoBytes?: number; // pad generated MP4 clips up to this size, streamed (default: a few hundred bytes)
	retryAfterSeconds?: number; // default 1
	imageBytes?: number; // pad generated PNGs up to this size (default: no padding)
	imageSize?: { width: number; height: number }; // one picture size for all (default: by each submit's resolution and aspect ratio, scaled down: imageSize.ts)
	now?: () => number; // injectable clock (epoch ms), default Date.now
	signedUrlTtlMs?: number; // sample and draft cache URLs expire after this (403 on download; a draft_enhance naming it: 422), default 600_000
	maxBodyBytes?: number; // submit bodies above this get 413, default 64 MB
	credits?: number; // value returned by the credits routes, default 1000
	creditsRoute?: boolean; // false: the credits routes answer 404, like a relay that does not serve them (default true)
	unknownTask404?: boolean; // true: a poll for an unknown id answers 404 + JSON, not 200 { status: 'Task not found' }
	/** Host name put into the URLs the simulator hands out (sample URLs, redirects, polling_url) and
	 *  expected in Host headers, instead of `host`; it still listens on `host`. For tests that resolve
	 *  a public-looking name to loopback through an injected DNS lookup. */
	advertisedHost?: string;
	/** Models a server whose keep-alive idle timeout races the client: a request arriving on a
	 *  kept-alive connection that has been idle at least this long (by the simulator's clock `now`)
	 *  is dropped unanswered (socket destroyed, nothing read), as if the server had closed the
	 *  connection just as the request went out. Counted by staleSocketDrops(). Default: never. */
	dropIdleReusedSocketsAfterMs?: number;
	/** Report `cost` (credits, relay-sim/prices.ts) BFL style: in an image's submit answer, on a clip's finished
	 *  poll. false: never, like a relay that does not report cost. Default true. */
	reportCost?: boolean;
}

export type FinalStatus = 'Request Moderated' | 'Content Moderated' | 'Error' | 'Task not found';

export type Fault =
	/** times: first N matching submits only. createTask: the task is created anyway (ambiguous 5xx);
	 *  default true for 500/502/504, false otherwise. */
	| { on: 'submit'; status: number; times?: number; retryAfter?: number; body?: unknown; createTask?: boolean }
	| { on: 'submit'; reset: true } // task created, then the socket is destroyed after the body was read
	| { on: 'submit'; hang: true } // task created, never answered (read timeout)
	| { on: 'poll'; status: number; times?: number; retryAfter?: number; body?: unknown } // times: first N polls of each task
	| { on: 'poll'; finalStatus: FinalStatus } // returned instead of Ready once the latency has elapsed
	| { on: 'poll'; progressStatuses: string[] } // the first polls of each task answer these, in order, then Pending/Ready
	| { on: 'poll'; pollingUrlHost: string } // BFL: submit returns a polling_url on this host (same port)
	| { on: 'download'; truncated: true } // Content-Length of the full file, half the bytes sent, socket destroyed
	| { on: 'download'; nonImage: true } // an HTML body served as image/png
	| { on: 'download'; slowBytesPerSecond: number }
	| { on: 'download'; sizeBytes: number; chunked?: boolean } // a valid PNG of that size; chunked: no Content-Length
	| { on: 'download'; redirects: number; redirectStatus?: 301 | 302 | 303 | 307 | 308 } // n hops (default 302) before the file
	| { on: 'download'; status: number; times?: number }; // first N downloads of each task

export interface SubmitLogEntry {
	prompt: string;
	model?: 'image' | 'video';
	taskId?: string;
	status: number; // HTTP status answered; 0 = socket reset, -1 = hung (never answered)
	at: number;
	style: ApiStyle;
	body?: unknown; // the parsed JSON body as received (to check what the client sent)
	endpoint?: string; // a FLUX.2 submit's endpoint (flux-2-pro, …); absent: flux-3-image / flux-3-video
	// a draft_enhance's prompt is the prompt of the draft it renders (its body has none)
}

export interface TaskLogEntry {
	prompt: string;
	createdAt: number;
	readyAt?: number; // when the task became Ready (createdAt + latency), set once a poll saw it Ready
	reportedAt?: number; // when the poll that reported the final status arrived
	finalStatus?: string; // 'Ready' or the final status of a fault, set on the poll that reported it
	latencyMs: number;
	style: ApiStyle;
	draft?: true; // a FLUX 3 Video draft (its result carries a draft cache)
	enhancedFrom?: string; // a draft_enhance: the draft task it rendered at full quality
}

export interface SimLog {
	submits: SubmitLogEntry[];
	submitsByPrompt: Map<string, number>; // accepted + rejected submit requests per prompt
	tasks: Map<string, TaskLogEntry>;
	polls: number;
	pollsByTask: Map<string, number>;
	pollTimes: number[]; // when each poll arrived (the simulator's clock), in order: poll rates per second
	downloads: number; // /files requests not answered with a redirect
	downloadsByTask: Map<string, number>;
	draftCacheDownloads: number; // draft cache files served (not counted in downloads)
	/** The last download of each task: when its request arrived and when its answer was fully written out
	 *  (the response's 'finish'; absent while it is still being sent or if the socket closed first). */
	downloadSpans: Map<string, { at: number; finishedAt?: number }>;
	redirects: number; // /files requests answered with a redirect
	peakActiveTasks: number;
	peakActiveVideoTasks: number; // flux-3-video tasks active at once, at most
	peakConcurrentRequests: number;
	credentialOnDownload: boolean; // true if an Authorization or x-key header ever reached /files/
	unauthorized: number; // requests answered 401
	foreignHostRequests: number; // requests whose Host header was not the simulator's own host:port
	creditChecks: number; // authenticated calls to the credits routes
	charged: number; // credits of every task created (accepted, or created by an ambiguous fault), reported or not
}

export interface RelaySimulator {
	url: string; // 'http://127.0.0.1:PORT'
	port: number;
	apiKey: string;
	log: SimLog; // live object; reset() clears it in place
	setFault(promptSubstring: string, fault: Fault): void;
	clearFaults(): void;
	setLatency(latency: LatencySpec): void;
	setMaxActiveTasks(max: number | undefined): void;
	setMaxActiveVideoTasks(max: number | undefined): void;
	activeVideoTasks(): number; // flux-3-video tasks submitted and not yet final, now
	activeTasks(): number; // submitted and not yet final, now
	staleSocketDrops(): number; // requests dropped by dropIdleReusedSocketsAfterMs
	setReportCost(on: boolean): void; // report cost (default) or omit it, like a relay that never reports it
	reset(): void; // clear faults, log and tasks (latency and the active cap stay as set)
	close(): Promise<void>;
}
