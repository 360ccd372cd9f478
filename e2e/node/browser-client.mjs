// The official TypeScript SDK's client for a web page: bundled for the
// browser by the end-to-end test of a browser client (e2e/cors_test.go).
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
