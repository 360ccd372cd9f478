// The reference MCP Apps host, for the view tests: the official TypeScript
// SDK's client (@modelcontextprotocol/client) connected to the plugin, and
// the ext-apps AppBridge between it and the view's sandboxed frame, as a
// client that shows apps runs them. It is bundled for the browser by the
// test (rolldown, see refhost.config.mjs) and started by the host page with
// window.startHost({endpoint, tool, args, uri, theme, timeZone}):
//
//   - the client calls the tool and reads the view's page (resources/read),
//     over streamable HTTP through the test's same-origin proxy, which adds
//     the person's token;
//   - the page goes into a sandboxed frame (allow-scripts and, only so the
//     test can read what the view drew, allow-same-origin; the page's own
//     CSP applies inside it);
//   - AppBridge answers the view's ui/initialize with the host's context,
//     sends the tool's input and result, passes the view's resource reads
//     and tool calls to the server through the client, and sizes the frame
//     to what the view reports in ui/notifications/size-changed.
//
// window.hostSeen lists what the view asked (for the tests), and
// window.hostError the first failure.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

window.hostSeen = [];
window.hostError = '';

async function startHost(cfg) {
    // A host that shows apps says so (the MCP Apps extension), as Claude
    // and VS Code do: a tool may then answer at once with its view.
    const client = new Client({ name: 'e2e-reference-host', version: '1.0.0' },
        { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(cfg.endpoint, location.href)));
    const result = await client.callTool({ name: cfg.tool, arguments: cfg.args });
    const read = await client.readResource({ uri: cfg.uri });
    const page = read.contents.find((c) => typeof c.text === 'string');
    if (!page) {
        throw new Error(`${cfg.uri} holds no page`);
    }

    // What the view asks of the server, as the tests read it: the bridge
    // forwards the view's reads and calls to this client.
    for (const [method, name] of [['resources/read', 'readResource'], ['tools/call', 'callTool']]) {
        const real = client[name].bind(client);
        client[name] = (params, ...rest) => {
            window.hostSeen.push(`${method} ${params?.uri || params?.name || ''}`);
            return real(params, ...rest);
        };
    }

    const frame = document.createElement('iframe');
    frame.id = 'view';
    frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
    document.body.appendChild(frame);

    const bridge = new AppBridge(client, { name: 'e2e-reference-host', version: '1.0.0' },
        { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
        { hostContext: { theme: cfg.theme, timeZone: cfg.timeZone, locale: 'en-US', displayMode: 'inline', platform: 'web' } });
    bridge.addEventListener('sizechange', ({ height }) => {
        window.hostSeen.push('ui/notifications/size-changed');
        if (height) {
            frame.style.height = `${Math.ceil(height)}px`;
        }
    });
    bridge.addEventListener('initialized', () => {
        window.hostSeen.push('ui/notifications/initialized');
        bridge.sendToolInput({ arguments: cfg.args })
            .then(() => bridge.sendToolResult(result))
            .catch(fail);
    });
    // The bridge listens before the page loads, so the view's first
    // message (ui/initialize) is not missed; the frame's window stays the
    // same object across the srcdoc navigation.
    await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
    frame.srcdoc = page.text;
    window.hostReady = true;
}

function fail(err) {
    window.hostError = window.hostError || String(err && err.stack ? err.stack : err);
    console.error('reference host:', window.hostError);
}

window.startHost = (cfg) => startHost(cfg).catch(fail);
