/** The request the client sends: already valid (the glue layer validates it once); its model makes the body. */

/**
 * A reference image as sent upstream: a URL, or a binary sent as plain base64. A base64 image may carry `ascii`, that
 * base64 as ASCII bytes: the one copy its request bodies are sent from (src/fluxN8n/sharedReferenceImages.ts makes
 * such copies, whose `data` is then built from `ascii` only when something asks for it).
 */
export type ReferenceImage = { kind: 'url'; url: string } | { kind: 'base64'; data: string; mimeType: string; readonly ascii?: Buffer };

/** How a medium goes into a body: its URL or base64 on the wire, a digest in the job key, 1 in a price. */
export type Media = (medium: ReferenceImage) => unknown;

/** How a request reaches its model (src/models): the endpoint name (`…/v1/<endpoint>`) and its body from values. */
export interface ModelWire {
	endpoint: string;
	body(values: Record<string, unknown>, media: Media): Record<string, unknown>;
	/** How the editor names a body field: the API's refusal of a field (422) names it so. */
	fieldLabel?(field: string): string | undefined;
}

/** A valid request for one image of any model: the model's values by parameter name, the reference images in order. */
export interface FluxImageRequest {
	model: ModelWire;
	prompt: string;
	values: Record<string, unknown>;
	images: ReferenceImage[];
}

/** The endpoint a request goes to. */
export const requestEndpoint = (req: { model: ModelWire }): string => req.model.endpoint;

/** A reference image as it goes on the wire: its URL, or its plain base64. */
export function wireImage(img: ReferenceImage): string {
	return img.kind === 'url' ? img.url : img.data;
}

/** The submit body, made by the model from the request's values (the reference images as `referenceImages`). */
export function requestBody(req: FluxImageRequest, media: Media = wireImage): Record<string, unknown> {
	return req.model.body({ ...req.values, prompt: req.prompt, referenceImages: req.images }, media);
}

/** {@link requestBody} as the JSON text that goes on the wire. */
export function requestBodyJson(req: FluxImageRequest): string {
	return JSON.stringify(requestBody(req));
}

/** The wire body of one submit: parts sent in order, and their total length (the Content-Length). */
export interface RequestPayload {
	parts: readonly Buffer[];
	length: number;
}

/** The ASCII bytes of base64 images that carry none (`ascii`), one per image object: jobs sharing the object share them. */
const base64Bytes = new WeakMap<ReferenceImage, Buffer>();

/**
 * The base64 text of an image as the bytes that go on the wire: its `ascii` copy when it has one (no copy made),
 * else one made once per image object. Every job that shares the image object sends from the same bytes.
 */
export function base64BytesOf(image: Extract<ReferenceImage, { kind: 'base64' }>): Buffer {
	if (image.ascii) return image.ascii;
	let bytes = base64Bytes.get(image);
	if (!bytes) base64Bytes.set(image, (bytes = Buffer.from(image.data, 'latin1')));
	return bytes;
}

/**
 * A body as wire parts, byte for byte its JSON: `build` writes each medium through `media` (in the order they
 * stand in the body). The JSON around each base64 medium is a small buffer of its own, and the medium is
 * {@link base64BytesOf} it, the same buffer for every job that shares the image object (base64 needs no JSON
 * escaping). Thirty jobs sharing one large reference image then hold one copy of it, not thirty bodies, and the
 * body's JSON text with the media is never built. The parts can be sent again (a retry) as they are.
 */
export function bodyPayload(build: (media: (m: ReferenceImage) => string) => Record<string, unknown>): RequestPayload {
	const marker = `\u0000media-${Math.random().toString(36).slice(2)}-`;
	const inline: Buffer[] = [];
	const json = JSON.stringify(build((m) => (m.kind === 'url' ? m.url : `${marker}${inline.push(base64BytesOf(m)) - 1}`)));
	const parts: Buffer[] = [];
	let rest = json;
	inline.forEach((bytes, i) => {
		const token = JSON.stringify(`${marker}${i}`).slice(1, -1);
		const at = rest.indexOf(token);
		parts.push(Buffer.from(rest.slice(0, at), 'utf8'), bytes);
		rest = rest.slice(at + token.length);
	});
	parts.push(Buffer.from(rest, 'utf8'));
	return { parts, length: parts.reduce((sum, part) => sum + part.length, 0) };
}

/** {@link requestBodyJson} as wire parts ({@link bodyPayload}). */
export function requestPayload(req: FluxImageRequest): RequestPayload {
	return bodyPayload((media) => requestBody(req, media));
}

/** A request whose own fields are its model's values by parameter name (a clip's: src/models/flux3Video.ts). */
export type ModelRequest = { readonly model: ModelWire };

/** The body of a {@link ModelRequest}: the model's own, media through `media` (default: as they go on the wire). */
export function modelRequestBody<R extends ModelRequest>(req: R, media: Media = wireImage): Record<string, unknown> {
	return req.model.body({ ...req }, media);
}

/** {@link modelRequestBody} as wire parts ({@link bodyPayload}): a 50 MB start video is held once, not twice. */
export function modelRequestPayload(req: ModelRequest): RequestPayload {
	return bodyPayload((media) => modelRequestBody(req, media));
}
