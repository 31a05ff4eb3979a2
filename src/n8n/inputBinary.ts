import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * Where n8n keeps an item's binaries under the workflow setting `binaryMode: 'combined'` (n8n >= 2.x
 * with the setting; n8n-workflow's BINARY_IN_JSON_PROPERTY): after each node the engine moves every
 * stored binary from `item.binary[key]` to `item.json._files[key]`.
 */
export const COMBINED_BINARY_JSON_PROPERTY = '_files';

/** True when the running workflow keeps binaries inside the item JSON (`binaryMode: 'combined'`). */
export function isCombinedBinaryMode(ctx: object): boolean {
	// getWorkflowSettings and binaryMode do not exist in n8n 2.0: there, binaries are always separate.
	const settings = (ctx as { getWorkflowSettings?: () => { binaryMode?: unknown } | undefined }).getWorkflowSettings?.();
	return settings?.binaryMode === 'combined';
}

/** A binary data object as n8n stores it: a MIME type and the bytes (base64) or a storage id. */
function isBinaryObject(value: unknown): value is IBinaryData {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
	const v = value as Record<string, unknown>;
	return typeof v.mimeType === 'string' && (typeof v.data === 'string' || typeof v.id === 'string');
}

/** `a.b.c` in `json`, own properties only (never a prototype's). */
function ownPath(json: IDataObject | undefined, path: string): unknown {
	let at: unknown = json;
	for (const key of path.split('.')) {
		if (!at || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
		at = (at as Record<string, unknown>)[key];
	}
	return at;
}

/**
 * What to hand n8n's binary helpers for the binary `property` of an input item, in either binary
 * mode, or `undefined` when the item has no such binary:
 * - `item.binary[property]` (separate mode, n8n 2.0's only mode; combined mode keeps binaries there
 *   that could not be stored);
 * - combined mode only: the JSON path `property` when it leads to a binary (e.g. `_files.photo`, as
 *   n8n's own helpers read it), else `_files.<property>` (so `photo` means the same in both modes).
 * JSON is never searched for binaries in separate mode: there it may come from outside (a webhook).
 */
export function locateInputBinary(ctx: IExecuteFunctions, itemIndex: number, property: string): IBinaryData | string | undefined {
	const item: INodeExecutionData | undefined = ctx.getInputData()[itemIndex];
	if (!item) return undefined;
	if (item.binary && Object.hasOwn(item.binary, property)) return item.binary[property];
	if (!isCombinedBinaryMode(ctx)) return undefined;
	for (const path of [property, `${COMBINED_BINARY_JSON_PROPERTY}.${property}`]) {
		if (isBinaryObject(ownPath(item.json, path))) return path;
	}
	return undefined;
}

/**
 * The bytes and MIME type of an input item's binary `property` through n8n's helpers
 * (`assertBinaryData`, `getBinaryDataBuffer`: in-memory, filesystem, S3, database storage alike),
 * in separate and combined binary mode; `undefined` when the item has no such binary.
 */
export async function readInputBinary(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: string,
): Promise<{ buffer: Buffer; mimeType: string; fileName?: string } | undefined> {
	const located = locateInputBinary(ctx, itemIndex, property);
	if (located === undefined) return undefined;
	const binary = ctx.helpers.assertBinaryData(itemIndex, located);
	const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, binary);
	return { buffer, mimeType: binary.mimeType, fileName: binary.fileName };
}

/** {@link readInputBinary} for the properties of one item (own properties only, either binary mode). */
export function itemBinaryReader(ctx: IExecuteFunctions, itemIndex: number) {
	return async (property: string) => await readInputBinary(ctx, itemIndex, property);
}
