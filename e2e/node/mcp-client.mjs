// A client of the official MCP TypeScript SDK for the end-to-end tests:
// it connects to MCP_URL over streamable HTTP (signed in with MCP_TOKEN as
// a bearer token when set), runs the steps of the plan given as its one
// argument (JSON) in order, and prints one JSON object on stdout:
//
//   {"protocolVersion", "sessionId", "serverInfo", "capabilities",
//    "instructions", "results": [...], "notifications": [...]}
//
// A step is {"method": "...", "params": {...}}. Methods with a helper in
// the SDK (tools/list, tools/call, resources/list, resources/templates/list,
// resources/read, prompts/list, prompts/get, completion/complete, ping,
// logging/setLevel) go through it, so the SDK validates the answer (a
// tool's structured content against its output schema, once tools/list has
// been read); any other method is sent as it is. {"method": "wait",
// "params": {"notification": "notifications/...", "timeoutMs": 5000,
// "count": 1}} waits until that many notifications of the method came. Each result is {"method", "result"} or {"method",
// "error": {"code", "message", "data"}}; a failed step does not stop the
// plan. Notifications are every one the server sent, in order.
//
// Tasks (MCP 2025-11-25): "tools/call-task" calls a tool as a task (its
// params as tools/call's, with task {ttl}) and keeps the task's id, which
// "$task" then stands for in later steps' params; "tasks/get",
// "tasks/result" (a tool's result), "tasks/list" and "tasks/cancel" go
// through the SDK's experimental tasks client; "tools/call-stream" calls a
// tool through callToolStream, as a host follows a task, and answers every
// message it yielded, each with when it came (Unix milliseconds).
// {"method": "pause"} prints {"paused": results-so-far} as a line and
// waits for a line on stdin: the test acts meanwhile.
//
// MCP_CLIENT_NAME names the client (default "e2e-typescript-sdk");
// MCP_CLIENT_CAPABILITIES is its capabilities as JSON (default {}). With
// elicitation among them, every elicitation/create is answered "accept"
// (in url mode: the person was sent to the page) and its params are
// printed too, as "elicitations". MCP_STEPS_FILE, when set, gets a line
// with each step's method as the step answers, so a test can act between
// steps.
// It exits 1 (with the reason on stderr) only when it cannot connect.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const url = process.env.MCP_URL;
if (!url) {
    console.error('MCP_URL is not set');
    process.exit(2);
}
const plan = JSON.parse(process.argv[2] ?? '[]');

const headers = {};
if (process.env.MCP_TOKEN) {
    headers.Authorization = `Bearer ${process.env.MCP_TOKEN}`;
}
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client(
    { name: process.env.MCP_CLIENT_NAME || 'e2e-typescript-sdk', version: '1.0.0' },
    { capabilities: JSON.parse(process.env.MCP_CLIENT_CAPABILITIES || '{}') },
);

const elicitations = [];
if (JSON.parse(process.env.MCP_CLIENT_CAPABILITIES || '{}').elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
        elicitations.push(req.params);
        return { action: 'accept' };
    });
}

const notifications = [];
const waiting = [];
client.fallbackNotificationHandler = async (n) => {
    notifications.push(n);
    for (const w of waiting.splice(0)) {
        w(n);
    }
};

// waitFor resolves once a notification of the method has arrived (also an
// earlier one), or rejects after timeoutMs.
function waitFor(method, timeoutMs, count = 1) {
    const seen = () => notifications.filter((n) => n.method === method).length >= count;
    if (seen()) {
        return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${method} (${count}) within ${timeoutMs} ms`)), timeoutMs);
        const check = (n) => {
            if (seen()) {
                clearTimeout(timer);
                resolve();
            } else {
                waiting.push(check);
            }
        };
        waiting.push(check);
    });
}

const helpers = {
    'tools/list': (p) => client.listTools(p),
    'tools/call': (p) => client.callTool(p),
    'resources/list': (p) => client.listResources(p),
    'resources/templates/list': (p) => client.listResourceTemplates(p),
    'resources/read': (p) => client.readResource(p),
    'resources/subscribe': (p) => client.subscribeResource(p),
    'resources/unsubscribe': (p) => client.unsubscribeResource(p),
    'prompts/list': (p) => client.listPrompts(p),
    'prompts/get': (p) => client.getPrompt(p),
    'completion/complete': (p) => client.complete(p),
    ping: () => client.ping(),
    'logging/setLevel': (p) => client.setLoggingLevel(p.level),
    'tools/call-task': async (p) => {
        const res = await client.request({ method: 'tools/call', params: { ...p, task: p.task ?? { ttl: 600000 } } }, CreateTaskResultSchema);
        lastTask = res.task.taskId;
        return res;
    },
    'tasks/get': (p) => client.experimental.tasks.getTask(p.taskId),
    'tasks/result': (p) => client.experimental.tasks.getTaskResult(p.taskId, CallToolResultSchema, { timeout: 120000 }),
    'tasks/list': (p) => client.experimental.tasks.listTasks(p.cursor),
    'tasks/cancel': (p) => client.experimental.tasks.cancelTask(p.taskId),
    'tools/call-stream': async (p) => {
        const messages = [];
        for await (const m of client.experimental.tasks.callToolStream(p, CallToolResultSchema, { task: { ttl: 600000 }, timeout: 120000 })) {
            messages.push({ ...m, error: m.error ? String(m.error.message ?? m.error) : undefined, at: Date.now() });
        }
        return { messages };
    },
};

let lastTask = null;
const stdin = createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

// withTask is params with every "$task" the id of the last task made.
function withTask(params) {
    return JSON.parse(JSON.stringify(params ?? {}), (_, v) => (v === '$task' ? lastTask : v));
}

async function run(step) {
    if (step.method === 'pause') {
        process.stdout.write(JSON.stringify({ paused: results }) + '\n');
        await lines.next();
        return {};
    }
    if (step.method === 'wait') {
        await waitFor(step.params.notification, step.params.timeoutMs ?? 5000, step.params.count ?? 1);
        return {};
    }
    const helper = helpers[step.method];
    if (helper) {
        return helper(withTask(step.params));
    }
    return client.request({ method: step.method, params: step.params ?? {} }, ResultSchema);
}

try {
    await client.connect(transport);
} catch (err) {
    console.error(`could not connect to ${url}: ${err?.stack ?? err}`);
    process.exit(1);
}

const results = [];
for (const step of plan) {
    try {
        results.push({ method: step.method, result: await run(step) });
    } catch (err) {
        results.push({ method: step.method, error: { code: err?.code ?? null, message: String(err?.message ?? err), data: err?.data ?? null } });
    }
    if (process.env.MCP_STEPS_FILE) {
        appendFileSync(process.env.MCP_STEPS_FILE, step.method + '\n');
    }
}

const out = {
    protocolVersion: transport.protocolVersion ?? null,
    sessionId: transport.sessionId ?? null,
    serverInfo: client.getServerVersion() ?? null,
    capabilities: client.getServerCapabilities() ?? null,
    instructions: client.getInstructions() ?? null,
    results,
    notifications,
    elicitations,
};
await client.close();
stdin.close();
process.stdout.write(JSON.stringify(out) + '\n');
