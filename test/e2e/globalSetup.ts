/**
 * The e2e suite's jest globalSetup (jest.e2e.config.js): FLUX_E2E_N8N is checked once, before any test file
 * starts n8n, so a value outside the support matrix fails the run once, up front, with its clear message
 * (not once per test file, and not with a stack trace).
 */
import { selectedN8nVersion } from '../../scripts/n8n/versions';

export default function checkSelectedN8nVersion(): void {
	try {
		selectedN8nVersion();
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		const clear = new Error(message);
		clear.stack = message; // jest prints the stack: for a wrong setting the message is all there is to say
		throw clear;
	}
}
