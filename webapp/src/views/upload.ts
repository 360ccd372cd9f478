// The upload view (ui://mattermost/upload): an MCP App the client shows
// for request_file. The person drops or picks a file; the view sends it to
// the request's drop URL and shows its sha256. The model learns of it by
// calling request_file with the request's id, never from the view.

import {App} from '@modelcontextprotocol/ext-apps/app-with-deps';

import {applyHostContext, type HostContext} from './host';
import type {Options} from './posts';
import {renderUpload, requestOf, sendFile, type Shown} from './upload_render';

const root = document.getElementById('root') as HTMLElement;
const opts: Options = {};
let current: Shown | null = null;
let drawn = false;

const app = new App({name: 'Mattermost file request', version: '1.0.0'});

// draw renders once: a redraw would drop the file being sent. A new
// theme only changes the page's colours.
function draw() {
    if (current && !drawn) {
        drawn = true;
        renderUpload(document, root, current, opts, sendFile, (url) => {
            app.openLink({url}).catch(() => window.open(url, '_blank', 'noopener'));
        });
    }
}

function metaOf(r: object): unknown {
    // eslint-disable-next-line no-underscore-dangle -- the protocol's name
    return (r as {_meta?: unknown})._meta;
}

app.ontoolresult = (params) => {
    current = requestOf(params.structuredContent, metaOf(params));
    if (!current) {
        root.textContent = 'No file request in this result.';
        return;
    }
    draw();
};
app.onhostcontextchanged = (ctx) => applyHostContext(ctx as HostContext, opts);
root.textContent = 'Loading…';
app.connect().then(() => {
    applyHostContext(app.getHostContext() as HostContext, opts);
    draw();
}).catch(() => {
    root.textContent = 'This view needs a client that shows MCP Apps.';
});
