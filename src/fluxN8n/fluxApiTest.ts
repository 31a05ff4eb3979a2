import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { checkFluxCredentials, redact } from '../flux';
import { parseFluxCredentials } from './fluxCredentials';
import { FluxCredentialsError } from './invalidInput';

/**
 * The FLUX API credential's "Test" button: `…/credits` where served, else a poll for a task that cannot
 * exist (src/flux/credentialCheck.ts). Never submits a job; the message is redacted.
 */
export async function fluxApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted<ICredentialDataDecryptedObject>,
): Promise<INodeCredentialTestResult> {
	try {
		const credentials = parseFluxCredentials(credential.data);
		const result = await checkFluxCredentials(credentials);
		return { status: result.ok ? 'OK' : 'Error', message: result.message };
	} catch (error) {
		if (error instanceof FluxCredentialsError) return { status: 'Error', message: error.message };
		return { status: 'Error', message: redact(error instanceof Error ? error.message : String(error)) };
	}
}
