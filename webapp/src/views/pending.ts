// The pending write view (ui://mattermost/pending): an MCP App the client
// shows for a write that waits for the person (create_post, get_pending).
// It reads the result the host hands it and, while the write waits, asks
// get_pending through the host every few seconds, until it is answered or
// expires; it never answers the write itself.

import {App} from '@modelcontextprotocol/ext-apps/app-with-deps';

import {applyHostContext, type HostContext} from './host';
import {pendingOf, renderPending, type Pending} from './pending_render';
import type {Options} from './posts';

const pollEveryMs = 4000;

// The server forgets an unanswered write after 10 minutes; a view without
// an expiry still stops asking after this long.
const maxPollMs = 11 * 60 * 1000;

const root = document.getElementById('root') as HTMLElement;
const opts: Options = {};
let current: Pending | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
let pollUntil = 0;

const app = new App({name: 'Mattermost pending write', version: '1.0.0'});

function render() {
    if (current) {
        renderPending(document, root, current, opts, (url) => {
            app.openLink({url}).catch(() => window.open(url, '_blank', 'noopener'));
        });
    }
}

function applyContext(ctx: HostContext | undefined) {
    applyHostContext(ctx, opts);
}

function schedule() {
    clearTimeout(timer);
    const waiting = current?.write.state === 'pending' || current?.write.state === 'executing';
    if (!waiting || !current?.write.id || !app.getHostCapabilities()?.serverTools || Date.now() > pollUntil) {
        return;
    }
    timer = setTimeout(poll, pollEveryMs);
}

async function poll() {
    const id = current?.write.id;
    try {
        const res = await app.callServerTool({name: 'get_pending', arguments: {id}});
        const next = pendingOf(res.structuredContent, metaOf(res), current ?? undefined);
        if (next && next.write.id === id) {
            current = next;
        } else if (res.isError && current) {
            // get_pending no longer knows it: unanswered until it expired.
            current = {...current, write: {...current.write, state: 'expired'}};
        }
        render();
    } catch {
        // The host could not ask this time; try again while the write waits.
    }
    schedule();
}

// metaOf is a result's _meta, where the server puts the preview.
function metaOf(r: object): unknown {
    // eslint-disable-next-line no-underscore-dangle -- the protocol's name
    return (r as {_meta?: unknown})._meta;
}

function start(structured: unknown, meta: unknown) {
    const next = pendingOf(structured, meta);
    if (!next) {
        root.textContent = 'Nothing is waiting in this result.';
        return;
    }
    current = next;
    const expires = Date.parse(String(next.preview.expires_at ?? ''));
    pollUntil = Math.min(Date.now() + maxPollMs, isNaN(expires) ? Infinity : expires + pollEveryMs);
    render();
    schedule();
}

app.ontoolresult = (params) => start(params.structuredContent, metaOf(params));
app.onhostcontextchanged = (ctx) => {
    applyContext(ctx as HostContext);
    render();
};
root.textContent = 'Loading…';
app.connect().then(() => {
    applyContext(app.getHostContext() as HostContext);
    render();
    schedule(); // a result that came before the host's capabilities
}).catch(() => {
    root.textContent = 'This view needs a client that shows MCP Apps.';
});
