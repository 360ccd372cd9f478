// A load of the official MCP TypeScript SDK's clients, for fastbench's
// get_me beside its floor: it connects one client per token of the JSON
// list given as its argument (MCP_URL, MCP_CLIENTS of them, the tokens in
// turn), prints "ready", waits for a line on stdin, then has every client
// call the tool MCP_TOOL (default get_me) MCP_CALLS times one after another,
// all clients at once, and prints one JSON object:
//
//   {"calls", "errors", "firstError", "p50Ms", "p99Ms", "elapsedMs"}
//
// then waits for another line and ends the clients' sessions. The SDK
// validates each answer as a host would (the structured content against
// the tool's output schema, read from tools/list once per client).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createInterface } from 'node:readline';

const url = process.env.MCP_URL;
const tokens = JSON.parse(process.argv[2] ?? '[]');
const count = Number(process.env.MCP_CLIENTS || '200');
const calls = Number(process.env.MCP_CALLS || '20');
const tool = process.env.MCP_TOOL || 'get_me';
if (!url || tokens.length === 0) {
    console.error('MCP_URL and a list of tokens are needed');
    process.exit(2);
}

const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));

async function connect(i) {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${tokens[i % tokens.length]}` } },
    });
    const client = new Client({ name: 'fastbench-typescript-sdk', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    await client.listTools(); // the output schemas the SDK validates answers with
    return { client, transport };
}

// Initialize a few at a time: not what is measured.
const clients = [];
for (let i = 0; i < count; i += 16) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 16); j++) {
        batch.push(connect(j));
    }
    clients.push(...(await Promise.all(batch)));
}
console.log('ready');
await nextLine();

const latencies = [];
let errors = 0;
let firstError = '';
const began = performance.now();
await Promise.all(clients.map(async ({ client }) => {
    for (let n = 0; n < calls; n++) {
        const t0 = performance.now();
        try {
            const res = await client.callTool({ name: tool, arguments: {} });
            if (res.isError) {
                throw new Error(`${tool} answered an error`);
            }
        } catch (err) {
            errors++;
            firstError ||= String(err?.message ?? err);
        }
        latencies.push(performance.now() - t0);
    }
}));
const elapsedMs = performance.now() - began;
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({
    calls: latencies.length, errors, firstError,
    p50Ms: latencies[Math.floor(latencies.length / 2)],
    p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 99 / 100))],
    elapsedMs,
}));
await nextLine();
await Promise.all(clients.map(({ transport }) => transport.terminateSession().catch(() => {})));
process.exit(0);
