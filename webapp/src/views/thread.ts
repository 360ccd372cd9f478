// The thread view (ui://mattermost/thread): an MCP App the client shows for
// read_thread, read_channel and search_posts. The host hands it the tool's
// structured result over postMessage (the ext-apps App class); it renders
// that, and the attachments' thumbnails it reads through the host
// (resources/read); no fetch, no external load (the page's CSP forbids
// both). Its styles are in the page (the server's <style>).

import {App} from '@modelcontextprotocol/ext-apps/app-with-deps';

import {applyHostContext, type HostContext} from './host';
import {addThumbnails, renderPage, thumbnailOf, thumbnailURI, type Image, type Options} from './posts';

const root = document.getElementById('root') as HTMLElement;
const opts: Options = {};
let last: unknown = null;

function applyContext(ctx: HostContext | undefined) {
    applyHostContext(ctx, opts);
}

const app = new App({name: 'Mattermost posts', version: '1.0.0'});

// Thumbnails are read as the person, through the host's own connection:
// the server's thumbnail resource checks access and answers Mattermost's
// own small thumbnail; the view holds no credential. Each file is read once,
// whatever re-renders (a theme change); the cache holds at most a few
// pages' thumbnails.
const maxCachedThumbnails = 64;
const thumbnails = new Map<string, Promise<Image | null>>();
function thumbnail(fileId: string): Promise<Image | null> {
    let p = thumbnails.get(fileId);
    if (!p) {
        if (thumbnails.size >= maxCachedThumbnails) {
            thumbnails.clear();
        }
        p = readThumbnail(fileId);
        thumbnails.set(fileId, p);
    }
    return p;
}

async function readThumbnail(fileId: string): Promise<Image | null> {
    const res = await app.readServerResource({uri: thumbnailURI(fileId)});
    return thumbnailOf(res);
}

app.ontoolresult = (params) => {
    last = params.structuredContent ?? null;
    renderPage(document, root, last, opts);
};
app.onhostcontextchanged = (ctx) => {
    applyContext(ctx as HostContext);
    if (last) {
        renderPage(document, root, last, opts);
    }
};
root.textContent = 'Loading posts…';
app.connect().then(() => {
    applyContext(app.getHostContext() as HostContext);
    if (app.getHostCapabilities()?.serverResources) {
        opts.thumbnail = thumbnail;
        addThumbnails(document, root, opts); // a result that came first
    }
}).catch(() => {
    root.textContent = 'This view needs a client that shows MCP Apps.';
});
